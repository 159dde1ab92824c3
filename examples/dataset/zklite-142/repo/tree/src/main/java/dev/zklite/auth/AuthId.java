package dev.zklite.auth;

/** An authenticated identity of a connection, e.g. ("digest", "app:...") or ("ip", "10.0.0.1"). */
public record AuthId(String scheme, String id) {

    @Override
    public String toString() {
        return scheme + ":" + id;
    }
}
