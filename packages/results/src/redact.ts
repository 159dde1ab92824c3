/** What replaces a secret in the files the harness writes. */
export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not redacted (replacing every short string would garble files). */
export const MIN_SECRET_LENGTH = 8;

/**
 * Replaces every occurrence of the secrets (the model's API key) in `data` with
 * {@link REDACTED}. Returns `data` itself when none occurs. Only the exact value is found:
 * an encoded or split copy is not (a hint, not a guarantee).
 *
 * @example
 * ```ts
 * redactSecrets('{"echo":"sk-live-1234567"}', ["sk-live-1234567"]); // '{"echo":"[REDACTED]"}'
 * ```
 */
export function redactSecrets(
  data: string | Uint8Array,
  secrets: readonly string[],
): string | Uint8Array {
  let bytes = Buffer.from(data);
  let changed = false;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH || !bytes.includes(secret)) continue;
    const parts: Buffer[] = [];
    let from = 0;
    for (let at = bytes.indexOf(secret, from); at >= 0; at = bytes.indexOf(secret, from)) {
      parts.push(bytes.subarray(from, at), Buffer.from(REDACTED));
      from = at + Buffer.byteLength(secret);
    }
    parts.push(bytes.subarray(from));
    bytes = Buffer.concat(parts);
    changed = true;
  }
  if (!changed) return data;
  return typeof data === "string" ? bytes.toString("utf8") : bytes;
}
