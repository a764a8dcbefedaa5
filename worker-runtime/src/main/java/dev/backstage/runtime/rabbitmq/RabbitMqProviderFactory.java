package dev.backstage.runtime.rabbitmq;

import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderFactory;
import dev.backstage.runtime.spi.ProviderSettings;

/** Creates {@link RabbitMqProvider}s by name ({@code rabbitmq}) through {@link java.util.ServiceLoader}. */
public final class RabbitMqProviderFactory implements ProviderFactory {
    @Override
    public String name() {
        return "rabbitmq";
    }

    @Override
    public Provider create(ProviderSettings settings) {
        return RabbitMqProvider.connect(settings);
    }
}
