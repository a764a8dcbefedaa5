package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderFactory;
import dev.backstage.runtime.spi.ProviderSettings;

/** ServiceLoader entry for {@code redis}. */
public final class RedisProviderFactory implements ProviderFactory {
    @Override
    public String name() {
        return "redis";
    }

    @Override
    public Provider create(ProviderSettings settings) {
        return RedisProvider.connect(RedisSettings.from(settings));
    }
}
