package dev.zklite.auth;

import java.util.ArrayList;
import java.util.List;

/**
 * One entry of a node's access control list: who ({@code scheme:id}) may do what
 * ({@link Perms} bits).
 */
public record AclEntry(int perms, String scheme, String id) {

    public static final AclEntry WORLD_ALL = new AclEntry(Perms.ALL, "world", "anyone");
    public static final AclEntry WORLD_READ = new AclEntry(Perms.READ, "world", "anyone");

    /** The ACL that gives everything to the creator's own authenticated identities. */
    public static final List<AclEntry> CREATOR_ALL = List.of(new AclEntry(Perms.ALL, "auth", ""));

    /**
     * Parses the shell syntax {@code scheme:id:perms}, several separated by commas, e.g.
     * {@code world:anyone:r,digest:app:6Jv+Yb3mK2ZQ=:cdrwa}. The id itself may contain colons.
     */
    public static List<AclEntry> parseList(String text) {
        List<AclEntry> out = new ArrayList<>();
        for (String part : text.split(",")) {
            String entry = part.trim();
            if (entry.isEmpty()) {
                continue;
            }
            int first = entry.indexOf(':');
            int last = entry.lastIndexOf(':');
            if (first < 0 || first == last) {
                throw new IllegalArgumentException("ACL entry must be scheme:id:perms, got " + entry);
            }
            out.add(new AclEntry(Perms.parse(entry.substring(last + 1)), entry.substring(0, first),
                    entry.substring(first + 1, last)));
        }
        return out;
    }

    @Override
    public String toString() {
        return scheme + ":" + id + ":" + Perms.toString(perms);
    }
}
