package dev.zklite.auth;

/** Permission bits of an ACL entry and their one-letter shell names (cdrwa). */
public final class Perms {

    public static final int READ = 1;
    public static final int WRITE = 1 << 1;
    public static final int CREATE = 1 << 2;
    public static final int DELETE = 1 << 3;
    public static final int ADMIN = 1 << 4;
    public static final int ALL = READ | WRITE | CREATE | DELETE | ADMIN;

    private Perms() {
    }

    /** Parses letters such as "rw" or "cdrwa"; unknown letters are rejected. */
    public static int parse(String letters) {
        int perms = 0;
        for (char c : letters.toCharArray()) {
            switch (c) {
                case 'r' -> perms |= READ;
                case 'w' -> perms |= WRITE;
                case 'c' -> perms |= CREATE;
                case 'd' -> perms |= DELETE;
                case 'a' -> perms |= ADMIN;
                default -> throw new IllegalArgumentException("unknown permission '" + c + "' in " + letters);
            }
        }
        return perms;
    }

    public static String toString(int perms) {
        StringBuilder sb = new StringBuilder();
        if ((perms & CREATE) != 0) {
            sb.append('c');
        }
        if ((perms & DELETE) != 0) {
            sb.append('d');
        }
        if ((perms & READ) != 0) {
            sb.append('r');
        }
        if ((perms & WRITE) != 0) {
            sb.append('w');
        }
        if ((perms & ADMIN) != 0) {
            sb.append('a');
        }
        return sb.toString();
    }
}
