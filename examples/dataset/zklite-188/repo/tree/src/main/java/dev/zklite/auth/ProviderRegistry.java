package dev.zklite.auth;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The authentication schemes a server accepts, by scheme name. */
public final class ProviderRegistry {

    private final Map<String, AuthenticationProvider> providers = new ConcurrentHashMap<>();

    /** The built-in schemes: digest (with an optional super user digest) and ip. */
    public static ProviderRegistry withDefaults(String superDigest) {
        ProviderRegistry registry = new ProviderRegistry();
        registry.register(new DigestAuthenticationProvider(superDigest));
        registry.register(new IPAuthenticationProvider());
        return registry;
    }

    public void register(AuthenticationProvider provider) {
        AuthenticationProvider previous = providers.putIfAbsent(provider.scheme(), provider);
        if (previous != null && previous != provider) {
            throw new IllegalStateException("scheme " + provider.scheme() + " is already registered");
        }
    }

    /** The provider of a scheme, or null if the scheme is unknown. */
    public AuthenticationProvider get(String scheme) {
        return providers.get(scheme);
    }

    public boolean isKnown(String scheme) {
        return "world".equals(scheme) || "auth".equals(scheme) || providers.containsKey(scheme);
    }
}
