package dev.zklite.proto;

/** Validation of node paths, shared by the client (fail early) and the server (trust nobody). */
public final class PathUtils {

    private PathUtils() {
    }

    /**
     * Checks that a path is absolute, has no empty, "." or ".." components, no trailing slash
     * and no control characters.
     *
     * @param isSequential a sequential create may end in "/" because the server appends the
     *     sequence number
     */
    public static void validatePath(String path, boolean isSequential) {
        validatePath(isSequential ? path + "1" : path);
    }

    public static void validatePath(String path) {
        if (path == null) {
            throw new IllegalArgumentException("Path cannot be null");
        }
        if (path.isEmpty()) {
            throw new IllegalArgumentException("Path length must be > 0");
        }
        if (path.charAt(0) != '/') {
            throw new IllegalArgumentException("Path must start with / character");
        }
        if (path.length() == 1) {
            return;
        }
        if (path.charAt(path.length() - 1) == '/') {
            throw new IllegalArgumentException("Path must not end with / character");
        }
        String reason = null;
        char last = '/';
        String[] parts = path.substring(1).split("/", -1);
        for (String part : parts) {
            if (part.isEmpty()) {
                reason = "empty node name specified";
                break;
            }
            if (part.equals(".") || part.equals("..")) {
                reason = "relative paths not allowed";
                break;
            }
        }
        for (int i = 1; reason == null && i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == 0) {
                reason = "null character not allowed @" + i;
            } else if (c > '\u0000' && c <= '\u001f' || c >= '\u007f' && c <= '\u009F') {
                reason = "invalid character @" + i;
            } else if (c == '/' && last == '/') {
                reason = "empty node name specified @" + i;
            }
            last = c;
        }
        if (reason != null) {
            throw new IllegalArgumentException("Invalid path string \"" + path + "\" caused by " + reason);
        }
    }

    /** The parent of an absolute path; the parent of "/x" is "/". */
    public static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }

    /** The last component of a path. */
    public static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The path a sequential create gets: the prefix followed by a ten-digit counter. */
    public static String sequentialName(String prefix, int sequence) {
        return prefix + String.format("%010d", sequence);
    }
}
