package dev.zklite.auth;

import java.net.InetSocketAddress;

/** One authentication scheme ("digest", "ip", ...): how to authenticate and how to match ACL ids. */
public interface AuthenticationProvider {

    String scheme();

    /**
     * Checks credentials sent in an auth packet.
     *
     * @return the identity to add to the connection, or null if authentication failed
     */
    AuthId authenticate(InetSocketAddress remote, byte[] credentials);

    /** Whether an authenticated id satisfies the id expression of an ACL entry. */
    boolean matches(String id, String aclExpr);

    /** Whether an id expression is well-formed for this scheme; checked when ACLs are set. */
    boolean isValid(String aclExpr);
}
