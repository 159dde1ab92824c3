package dev.zklite.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class ServerConfigTest {

    private static Properties base() {
        Properties p = new Properties();
        p.setProperty("dataDir", "/var/lib/zklite");
        p.setProperty("clientPort", "2181");
        return p;
    }

    @Test
    void sessionTimeoutBoundsDefaultToTickMultiples() throws Exception {
        Properties p = base();
        p.setProperty("tickTime", "2000");
        ServerConfig c = ServerConfig.parse(p);
        assertEquals(4000, c.minSessionTimeout());
        assertEquals(40000, c.maxSessionTimeout());
        assertEquals(4000, c.negotiateSessionTimeout(1000));
        assertEquals(10000, c.negotiateSessionTimeout(10000));
    }

    @Test
    void rejectsUnknownKeysAndLoneServers() {
        Properties typo = base();
        typo.setProperty("tickTIme", "2000");
        assertThrows(ServerConfig.ConfigException.class, () -> ServerConfig.parse(typo));
        Properties lone = base();
        lone.setProperty("server.1", "zk1:2888:3888");
        assertThrows(ServerConfig.ConfigException.class, () -> ServerConfig.parse(lone));
    }
}
