package dev.zklite.auth;

import java.util.ArrayList;
import java.util.List;

/**
 * Decides whether a connection's identities grant a permission under a node's ACL, and
 * validates ACLs before they are stored.
 */
public final class AclChecker {

    /** Thrown when no ACL entry grants the permission. */
    public static final class NoAuthException extends Exception {
        private static final long serialVersionUID = 1L;

        public NoAuthException(String path, int perm) {
            super("not authorized to " + Perms.toString(perm) + " " + path);
        }
    }

    /** Thrown for an ACL that names an unknown scheme or a malformed id. */
    public static final class InvalidAclException extends Exception {
        private static final long serialVersionUID = 1L;

        public InvalidAclException(String message) {
            super(message);
        }
    }

    private final ProviderRegistry providers;
    private final boolean skipAcl;

    public AclChecker(ProviderRegistry providers, boolean skipAcl) {
        this.providers = providers;
        this.skipAcl = skipAcl;
    }

    public void check(String path, List<AclEntry> acl, int perm, List<AuthId> ids) throws NoAuthException {
        if (skipAcl || acl == null || acl.isEmpty()) {
            return;
        }
        for (AuthId id : ids) {
            if ("super".equals(id.scheme())) {
                return;
            }
        }
        for (AclEntry entry : acl) {
            if ((entry.perms() & perm) == 0) {
                continue;
            }
            if ("world".equals(entry.scheme()) && "anyone".equals(entry.id())) {
                return;
            }
            AuthenticationProvider provider = providers.get(entry.scheme());
            if (provider == null) {
                continue;
            }
            for (AuthId id : ids) {
                if (id.scheme().equals(entry.scheme()) && provider.matches(id.id(), entry.id())) {
                    return;
                }
            }
        }
        throw new NoAuthException(path, perm);
    }

    /**
     * Validates an ACL from a create or setACL request and expands "auth" entries into the
     * creator's identities.
     */
    public List<AclEntry> fixupAcl(List<AclEntry> acl, List<AuthId> ids) throws InvalidAclException {
        if (acl == null || acl.isEmpty()) {
            throw new InvalidAclException("ACL must not be empty");
        }
        List<AclEntry> out = new ArrayList<>();
        for (AclEntry entry : acl) {
            if (entry.perms() == 0 || (entry.perms() & ~Perms.ALL) != 0) {
                throw new InvalidAclException("bad permissions " + entry.perms() + " in " + entry);
            }
            switch (entry.scheme()) {
                case "world" -> {
                    if (!"anyone".equals(entry.id())) {
                        throw new InvalidAclException("world scheme only allows id 'anyone'");
                    }
                    out.add(entry);
                }
                case "auth" -> {
                    boolean any = false;
                    for (AuthId id : ids) {
                        if (!"ip".equals(id.scheme()) && providers.isKnown(id.scheme())) {
                            out.add(new AclEntry(entry.perms(), id.scheme(), id.id()));
                            any = true;
                        }
                    }
                    if (!any) {
                        throw new InvalidAclException("auth scheme used without an authenticated identity");
                    }
                }
                default -> {
                    AuthenticationProvider provider = providers.get(entry.scheme());
                    if (provider == null || !provider.isValid(entry.id())) {
                        throw new InvalidAclException("invalid ACL entry " + entry);
                    }
                    out.add(entry);
                }
            }
        }
        return out;
    }
}
