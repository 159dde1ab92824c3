package dev.zklite.config;

import dev.zklite.server.nio.NIOServerCnxnFactory;
import java.io.File;
import java.io.FileReader;
import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The server configuration from {@code conf/zklite.properties}. Unknown keys are rejected so
 * a typo does not silently leave a default in place.
 */
public final class ServerConfig {

    /** A configuration file that cannot be used. */
    public static final class ConfigException extends Exception {
        private static final long serialVersionUID = 1L;

        public ConfigException(String message) {
            super(message);
        }
    }

    /** One member of the ensemble: {@code server.<id>=host:quorumPort:electionPort[:observer]}. */
    public record QuorumServer(long id, String host, int quorumPort, int electionPort, boolean observer) {
    }

    private static final Set<String> KNOWN_KEYS = Set.of("tickTime", "initLimit", "syncLimit", "dataDir",
            "dataLogDir", "clientPort", "clientPortAddress", "maxClientCnxns", "minSessionTimeout",
            "maxSessionTimeout", "snapCount",
            "forceSync", "fsync.warningthresholdms", "jute.maxbuffer", "4lw.commands.whitelist",
            "nio.numSelectorThreads", "nio.numWorkerThreads", "nio.sessionlessCnxnTimeout",
            "maxOutstandingPerConnection", "skipACL");

    int tickTime = 2000;
    int initLimit = 10;
    int syncLimit = 5;
    File dataDir;
    File dataLogDir;
    InetSocketAddress clientPortAddress;
    int maxClientCnxns = 60;
    int minSessionTimeout = -1;
    int maxSessionTimeout = -1;
    int snapCount = 100_000;
    boolean forceSync = true;
    long fsyncWarningThresholdMs = 1000;
    int maxBuffer = 0xfffff;
    Set<String> fourLetterWhitelist = Set.of("srvr", "ruok", "mntr");
    int selectorThreads = Math.max(1, (int) Math.sqrt(Runtime.getRuntime().availableProcessors() / 2.0));
    int workerThreads = 2 * Runtime.getRuntime().availableProcessors();
    int sessionlessCnxnTimeoutMs = 10_000;
    int maxOutstandingPerConnection = 1000;
    boolean skipAcl;
    final Map<Long, QuorumServer> servers = new TreeMap<>();

    public static ServerConfig parse(File file) throws IOException, ConfigException {
        try (Reader reader = new FileReader(file)) {
            Properties props = new Properties();
            props.load(reader);
            return parse(props);
        }
    }

    public static ServerConfig parse(Properties props) throws ConfigException {
        ServerConfig c = new ServerConfig();
        int clientPort = 0;
        String clientPortAddress = null;
        for (String key : props.stringPropertyNames()) {
            String value = props.getProperty(key).trim();
            if (key.startsWith("server.")) {
                c.addServer(key, value);
                continue;
            }
            if (!KNOWN_KEYS.contains(key)) {
                throw new ConfigException("Unknown configuration key " + key);
            }
            switch (key) {
                case "tickTime" -> c.tickTime = positive(key, value);
                case "initLimit" -> c.initLimit = positive(key, value);
                case "syncLimit" -> c.syncLimit = positive(key, value);
                case "dataDir" -> c.dataDir = new File(value);
                case "dataLogDir" -> c.dataLogDir = new File(value);
                case "clientPort" -> clientPort = port(key, value);
                case "clientPortAddress" -> clientPortAddress = value;
                case "maxClientCnxns" -> c.maxClientCnxns = nonNegative(key, value);
                case "minSessionTimeout" -> c.minSessionTimeout = positive(key, value);
                case "maxSessionTimeout" -> c.maxSessionTimeout = positive(key, value);
                case "snapCount" -> c.snapCount = positive(key, value);
                case "forceSync" -> c.forceSync = !"no".equalsIgnoreCase(value);
                case "fsync.warningthresholdms" -> c.fsyncWarningThresholdMs = positive(key, value);
                case "jute.maxbuffer" -> c.maxBuffer = positive(key, value);
                case "4lw.commands.whitelist" -> c.fourLetterWhitelist = words(value);
                case "nio.numSelectorThreads" -> c.selectorThreads = positive(key, value);
                case "nio.numWorkerThreads" -> c.workerThreads = positive(key, value);
                case "nio.sessionlessCnxnTimeout" -> c.sessionlessCnxnTimeoutMs = positive(key, value);
                case "maxOutstandingPerConnection" -> c.maxOutstandingPerConnection = positive(key, value);
                case "skipACL" -> c.skipAcl = "yes".equalsIgnoreCase(value);
                default -> throw new IllegalStateException("key in KNOWN_KEYS without a case: " + key);
            }
        }
        if (c.dataDir == null) {
            throw new ConfigException("dataDir is not set");
        }
        if (c.dataLogDir == null) {
            c.dataLogDir = c.dataDir;
        }
        if (clientPort == 0) {
            throw new ConfigException("clientPort is not set");
        }
        c.clientPortAddress = clientPortAddress == null ? new InetSocketAddress(clientPort)
                : new InetSocketAddress(clientPortAddress, clientPort);
        c.validate();
        return c;
    }

    /** Checks relations between settings, filling derived defaults first. */
    void validate() throws ConfigException {
        if (minSessionTimeout == -1) {
            minSessionTimeout = tickTime * 2;
        }
        if (maxSessionTimeout == -1) {
            maxSessionTimeout = tickTime * 20;
        }
        if (minSessionTimeout > maxSessionTimeout) {
            throw new ConfigException("minSessionTimeout " + minSessionTimeout + " must not be larger than maxSessionTimeout "
                    + maxSessionTimeout);
        }
        if (minSessionTimeout < tickTime) {
            // a session cannot expire more precisely than one tick
            throw new ConfigException("minSessionTimeout " + minSessionTimeout + " is below tickTime " + tickTime);
        }
        if (syncLimit > initLimit) {
            throw new ConfigException("syncLimit " + syncLimit + " must not be larger than initLimit " + initLimit);
        }
        if (servers.size() == 1) {
            throw new ConfigException("an ensemble needs at least two servers; remove server.N for standalone mode");
        }
        long voters = servers.values().stream().filter(s -> !s.observer()).count();
        if (!servers.isEmpty() && voters < 2) {
            throw new ConfigException("an ensemble needs at least two voting members, got " + voters);
        }
    }

    /** Clamps a client's requested session timeout into [min, max]. */
    public int negotiateSessionTimeout(int requested) {
        return Math.max(minSessionTimeout, Math.min(maxSessionTimeout, requested));
    }

    private void addServer(String key, String value) throws ConfigException {
        long id;
        try {
            id = Long.parseLong(key.substring("server.".length()));
        } catch (NumberFormatException e) {
            throw new ConfigException("bad server id in " + key);
        }
        if (id < 0 || id > 255) {
            throw new ConfigException(key + ": server ids must be in [0, 255], they are the high byte of session ids");
        }
        String[] parts = value.split(":");
        if (parts.length < 3 || parts.length > 4) {
            throw new ConfigException(key + "=" + value + " does not have the form host:port:port[:observer]");
        }
        boolean observer = parts.length == 4 && "observer".equalsIgnoreCase(parts[3]);
        if (parts.length == 4 && !observer && !"participant".equalsIgnoreCase(parts[3])) {
            throw new ConfigException(key + ": unknown peer type " + parts[3]);
        }
        servers.put(id, new QuorumServer(id, parts[0], port(key, parts[1]), port(key, parts[2]), observer));
    }

    private static int positive(String key, String value) throws ConfigException {
        int n = integer(key, value);
        if (n <= 0) {
            throw new ConfigException(key + " must be positive, got " + value);
        }
        return n;
    }

    private static int nonNegative(String key, String value) throws ConfigException {
        int n = integer(key, value);
        if (n < 0) {
            throw new ConfigException(key + " must not be negative, got " + value);
        }
        return n;
    }

    private static int port(String key, String value) throws ConfigException {
        int n = integer(key, value);
        if (n < 1 || n > 65535) {
            throw new ConfigException(key + " is not a valid port: " + value);
        }
        return n;
    }

    private static int integer(String key, String value) throws ConfigException {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " is not a number: " + value);
        }
    }

    private static Set<String> words(String value) {
        Set<String> out = new LinkedHashSet<>();
        for (String w : value.split(",")) {
            if (!w.isBlank()) {
                out.add(w.trim());
            }
        }
        return Collections.unmodifiableSet(out);
    }

    public int tickTime() {
        return tickTime;
    }

    public File dataDir() {
        return dataDir;
    }

    public File dataLogDir() {
        return dataLogDir;
    }

    public InetSocketAddress clientPortAddress() {
        return clientPortAddress;
    }

    public int minSessionTimeout() {
        return minSessionTimeout;
    }

    public int maxSessionTimeout() {
        return maxSessionTimeout;
    }

    public int snapCount() {
        return snapCount;
    }

    public boolean forceSync() {
        return forceSync;
    }

    public long fsyncWarningThresholdMs() {
        return fsyncWarningThresholdMs;
    }

    public Set<String> fourLetterWhitelist() {
        return fourLetterWhitelist;
    }

    public boolean skipAcl() {
        return skipAcl;
    }

    /** The client port settings for the connection factory. */
    public NIOServerCnxnFactory.Settings nioSettings() {
        return new NIOServerCnxnFactory.Settings(clientPortAddress, maxClientCnxns, maxBuffer, selectorThreads,
                workerThreads, maxOutstandingPerConnection, sessionlessCnxnTimeoutMs, fourLetterWhitelist);
    }

    public List<QuorumServer> servers() {
        return new ArrayList<>(servers.values());
    }
}
