package dev.zklite.auth;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * The "ip" scheme: every connection is implicitly authenticated with its source address.
 * ACL ids are an address or a CIDR block ({@code 10.2.0.0/16}).
 */
public final class IPAuthenticationProvider implements AuthenticationProvider {

    @Override
    public String scheme() {
        return "ip";
    }

    @Override
    public AuthId authenticate(InetSocketAddress remote, byte[] credentials) {
        return new AuthId(scheme(), remote.getAddress().getHostAddress());
    }

    @Override
    public boolean matches(String id, String aclExpr) {
        byte[] addr = literal(id);
        if (addr == null) {
            return false;
        }
        String[] parts = aclExpr.split("/", 2);
        byte[] block = literal(parts[0]);
        if (block == null || block.length != addr.length) {
            return false;
        }
        int bits = addr.length * 8;
        if (parts.length == 2) {
            try {
                bits = Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                return false;
            }
            if (bits < 0 || bits > addr.length * 8) {
                return false;
            }
        }
        return samePrefix(addr, block, bits);
    }

    static boolean samePrefix(byte[] a, byte[] b, int bits) {
        int fullBytes = bits / 8;
        for (int i = 0; i < fullBytes; i++) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        int rest = bits % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xff << (8 - rest)) & 0xff;
        return (a[fullBytes] & mask) == (b[fullBytes] & mask);
    }

    @Override
    public boolean isValid(String aclExpr) {
        String[] parts = aclExpr.split("/", 2);
        byte[] addr = literal(parts[0]);
        if (addr == null) {
            return false;
        }
        if (parts.length == 1) {
            return true;
        }
        try {
            int bits = Integer.parseInt(parts[1]);
            return bits >= 0 && bits <= addr.length * 8;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Parses an IP literal without ever doing a DNS lookup; null if it is not one. */
    static byte[] literal(String text) {
        if (text.isEmpty() || !(Character.digit(text.charAt(0), 16) >= 0 || text.charAt(0) == ':')) {
            return null;
        }
        if (text.chars().anyMatch(c -> !(Character.digit(c, 16) >= 0 || c == '.' || c == ':'))) {
            return null;
        }
        try {
            return InetAddress.getByName(text).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
