package dev.backstage.runtime.kafka;

import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderFactory;
import dev.backstage.runtime.spi.ProviderSettings;

/** Finds the Kafka provider by name {@code kafka} (ServiceLoader); options are described in {@link KafkaSettings#from}. */
public final class KafkaProviderFactory implements ProviderFactory {
    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public Provider create(ProviderSettings settings) {
        return KafkaProvider.connect(KafkaSettings.from(settings));
    }
}
