import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback smart-HTTP git server (see {@link gitHttpServer}). */
export interface GitHttpServer {
  /** `http://127.0.0.1:<port>/<name>` for a repository `<root>/<name>`. */
  url(name: string): string;
  /** Requests served so far (method and path), for asserting what a client fetched. */
  readonly requests: string[];
  close(): Promise<void>;
}

/**
 * Serves the git repositories under `root` over smart HTTP on 127.0.0.1: Node's http in
 * front of the real `git http-backend` CGI, so clients clone and fetch exactly as from a
 * public host, with no network. `env` adds variables to the CGI's environment (for example
 * `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_0`/`GIT_CONFIG_VALUE_0`, which git reads as protected
 * command-line configuration).
 */
export async function gitHttpServer(
  root: string,
  env: Readonly<Record<string, string>> = {},
): Promise<GitHttpServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const target = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(`${req.method ?? "GET"} ${target.pathname}`);
    const cgi = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: target.pathname,
        QUERY_STRING: target.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        HTTP_CONTENT_ENCODING: req.headers["content-encoding"] ?? "",
        GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
        REMOTE_ADDR: "127.0.0.1",
        ...env,
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (started) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      started = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      res.write(head.subarray(end + 4));
    });
    cgi.on("close", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
