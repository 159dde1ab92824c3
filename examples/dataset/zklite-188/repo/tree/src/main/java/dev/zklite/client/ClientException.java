package dev.zklite.client;

import dev.zklite.proto.ErrorCode;

/** A request failed with an error code from the server or from the connection. */
public class ClientException extends Exception {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;
    private final String path;

    public ClientException(ErrorCode code, String path) {
        super(code + (path == null ? "" : " for " + path));
        this.code = code;
        this.path = path;
    }

    public ErrorCode code() {
        return code;
    }

    public String path() {
        return path;
    }
}
