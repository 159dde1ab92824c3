package dev.zklite.cli;

import dev.zklite.auth.AclEntry;
import dev.zklite.client.ClientException;
import dev.zklite.client.RetryLoop;
import dev.zklite.client.ZkLiteClient;
import dev.zklite.proto.CreateMode;
import dev.zklite.proto.Stat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The admin tool.
 *
 * <pre>
 *   zklite-admin -server host:port word ruok|stat|mntr|cons|conf
 *   zklite-admin -server host:port ls|get|stat|rm PATH
 *   zklite-admin -server host:port create [-e] [-s] PATH DATA [ACL]
 *   zklite-admin -server host:port set PATH DATA [VERSION]
 * </pre>
 */
public final class AdminMain {

    private static final int SESSION_TIMEOUT_MS = 30_000;

    private final PrintStream out;
    private final PrintStream err;

    AdminMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) throws Exception {
        System.exit(new AdminMain(System.out, System.err).run(args));
    }

    int run(String[] args) throws InterruptedException {
        if (args.length < 3 || !"-server".equals(args[0])) {
            err.println("usage: zklite-admin -server host:port COMMAND [ARGS...]");
            return 2;
        }
        String server = args[1];
        List<String> rest = Arrays.asList(args).subList(2, args.length);
        try {
            if ("word".equals(rest.get(0))) {
                return rest.size() == 2 ? fourLetterWord(server, rest.get(1)) : usage();
            }
            try (ZkLiteClient client = new ZkLiteClient(server, SESSION_TIMEOUT_MS, event -> { })) {
                return command(client, rest);
            }
        } catch (ClientException e) {
            err.println("Error: " + e.getMessage());
            return 1;
        } catch (IOException | IllegalArgumentException e) {
            err.println("Error: " + e.getMessage());
            return 2;
        }
    }

    private int usage() {
        err.println("usage: zklite-admin -server host:port word ruok|stat|mntr|cons|conf");
        return 2;
    }

    private int command(ZkLiteClient client, List<String> args) throws ClientException, InterruptedException {
        RetryLoop retry = new RetryLoop(3, 200, 2000);
        String cmd = args.get(0);
        switch (cmd) {
            case "ls" -> retry.run(() -> client.getChildren(args.get(1), null)).forEach(out::println);
            case "get" -> out.println(new String(retry.run(() -> client.getData(args.get(1), null)),
                    StandardCharsets.UTF_8));
            case "stat" -> {
                Stat stat = retry.run(() -> client.exists(args.get(1), null));
                out.println(stat == null ? "Node does not exist: " + args.get(1) : formatStat(stat));
            }
            case "rm" -> client.delete(args.get(1), -1);
            case "set" -> {
                int version = args.size() > 3 ? Integer.parseInt(args.get(3)) : -1;
                client.setData(args.get(1), args.get(2).getBytes(StandardCharsets.UTF_8), version);
            }
            case "create" -> out.println("Created " + create(client, args.subList(1, args.size())));
            default -> {
                err.println("unknown command " + cmd);
                return 2;
            }
        }
        return 0;
    }

    /** Not retried: a create that failed with connection loss may have succeeded. */
    private String create(ZkLiteClient client, List<String> args) throws ClientException, InterruptedException {
        boolean ephemeral = args.contains("-e");
        boolean sequential = args.contains("-s");
        List<String> positional = args.stream().filter(a -> !a.startsWith("-")).toList();
        if (positional.size() < 2) {
            throw new IllegalArgumentException("create [-e] [-s] PATH DATA [ACL]");
        }
        List<AclEntry> acl = positional.size() > 2 ? AclEntry.parseList(positional.get(2)) : List.of(AclEntry.WORLD_ALL);
        CreateMode mode = ephemeral ? (sequential ? CreateMode.EPHEMERAL_SEQUENTIAL : CreateMode.EPHEMERAL)
                : (sequential ? CreateMode.PERSISTENT_SEQUENTIAL : CreateMode.PERSISTENT);
        return client.create(positional.get(0), positional.get(1).getBytes(StandardCharsets.UTF_8), acl, mode);
    }

    static String formatStat(Stat stat) {
        return String.join("\n",
                "cZxid = 0x" + Long.toHexString(stat.czxid()),
                "mZxid = 0x" + Long.toHexString(stat.mzxid()),
                "dataVersion = " + stat.version(),
                "aclVersion = " + stat.aversion(),
                "ephemeralOwner = 0x" + Long.toHexString(stat.ephemeralOwner()),
                "dataLength = " + stat.dataLength(),
                "numChildren = " + stat.numChildren());
    }

    /** Sends a four-letter word and prints whatever the server writes before closing. */
    private int fourLetterWord(String server, String word) throws IOException {
        if (word.length() != 4) {
            throw new IllegalArgumentException("not a four-letter word: " + word);
        }
        int colon = server.lastIndexOf(':');
        InetSocketAddress addr = new InetSocketAddress(server.substring(0, colon),
                Integer.parseInt(server.substring(colon + 1)));
        try (Socket socket = new Socket()) {
            socket.connect(addr, 5000);
            socket.setSoTimeout(5000);
            OutputStream os = socket.getOutputStream();
            os.write(word.getBytes(StandardCharsets.US_ASCII));
            os.flush();
            socket.shutdownOutput();
            InputStream is = socket.getInputStream();
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            is.transferTo(reply);
            out.print(reply.toString(StandardCharsets.UTF_8));
        }
        return 0;
    }
}
