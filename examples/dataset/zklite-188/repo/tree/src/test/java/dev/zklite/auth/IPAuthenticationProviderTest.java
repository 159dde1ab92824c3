package dev.zklite.auth;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IPAuthenticationProviderTest {

    private final IPAuthenticationProvider provider = new IPAuthenticationProvider();

    @Test
    void matchesCidrBlocks() {
        assertTrue(provider.matches("10.2.7.41", "10.2.0.0/16"));
        assertTrue(provider.matches("10.2.7.41", "10.2.7.41"));
        assertFalse(provider.matches("10.3.7.41", "10.2.0.0/16"));
        assertTrue(provider.matches("10.2.7.41", "10.2.7.32/27"));
        assertFalse(provider.matches("10.2.7.41", "10.2.7.0/27"));
    }

    @Test
    void neverResolvesHostNames() {
        assertFalse(provider.isValid("localhost"));
        assertFalse(provider.matches("10.2.7.41", "example.com/8"));
        assertFalse(provider.isValid("10.0.0.0/33"));
    }
}
