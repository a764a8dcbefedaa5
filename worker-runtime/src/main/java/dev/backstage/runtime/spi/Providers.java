package dev.backstage.runtime.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Finds a {@link ProviderFactory} by name on the classpath. */
public final class Providers {
    private Providers() {}

    public static Provider create(ProviderSettings settings) {
        return factory(settings.provider()).create(settings);
    }

    public static ProviderFactory factory(String name) {
        List<String> known = new ArrayList<>();
        for (ProviderFactory factory : ServiceLoader.load(ProviderFactory.class)) {
            if (factory.name().equalsIgnoreCase(name)) {
                return factory;
            }
            known.add(factory.name());
        }
        throw new ConfigurationException("unknown provider '" + name + "'; use one of " + known);
    }
}
