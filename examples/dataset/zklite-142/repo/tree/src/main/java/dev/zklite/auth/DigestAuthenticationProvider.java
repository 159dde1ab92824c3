package dev.zklite.auth;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The "digest" scheme: clients send {@code user:password}; ACLs name
 * {@code user:base64(sha1(user:password))}, so the password never appears in an ACL.
 */
public final class DigestAuthenticationProvider implements AuthenticationProvider {

    /** The digest of the super user, from -Dzklite.superDigest; null when none is set. */
    private final String superDigest;

    public DigestAuthenticationProvider(String superDigest) {
        this.superDigest = superDigest;
    }

    @Override
    public String scheme() {
        return "digest";
    }

    /** {@code user:password} to {@code user:digest}. */
    public static String generateDigest(String idPassword) {
        int colon = idPassword.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("expected user:password");
        }
        try {
            byte[] sha = MessageDigest.getInstance("SHA1").digest(idPassword.getBytes(StandardCharsets.UTF_8));
            return idPassword.substring(0, colon) + ":" + Base64.getEncoder().encodeToString(sha);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA1 is a required JDK algorithm", e);
        }
    }

    @Override
    public AuthId authenticate(InetSocketAddress remote, byte[] credentials) {
        if (credentials == null) {
            return null;
        }
        String idPassword = new String(credentials, StandardCharsets.UTF_8);
        if (idPassword.indexOf(':') <= 0) {
            return null;
        }
        String digest = generateDigest(idPassword);
        if (digest.equals(superDigest)) {
            return new AuthId("super", "");
        }
        return new AuthId(scheme(), digest);
    }

    @Override
    public boolean matches(String id, String aclExpr) {
        return id.equals(aclExpr);
    }

    @Override
    public boolean isValid(String aclExpr) {
        String[] parts = aclExpr.split(":", 2);
        return parts.length == 2 && !parts[0].isEmpty() && !parts[1].isEmpty();
    }
}
