package dev.backstage.runtime.cli;

import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import java.util.Map;
import picocli.CommandLine.Option;

/** Which broker the CLI talks to: flags first, then environment variables. */
final class BrokerOptions {
    @Option(names = "--provider", description = "redis (default), rabbitmq or kafka; env BACKSTAGE_PROVIDER")
    String provider;

    @Option(names = "--url", description = "broker URL; env BACKSTAGE_REDIS_URL / BACKSTAGE_RABBITMQ_URL / "
            + "BACKSTAGE_KAFKA_BOOTSTRAP (defaults: redis://127.0.0.1:6379, amqp://guest:guest@127.0.0.1:5672, 127.0.0.1:9092)")
    String url;

    @Option(names = "--prefix", description = "key prefix (default backstage)")
    String prefix;

    @Option(names = "--group", description = "consumer group (default backstage-workers)")
    String group;

    private static final Map<String, String[]> URL_ENV = Map.of(
            "redis", new String[] {"BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379"},
            "rabbitmq", new String[] {"BACKSTAGE_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672"},
            "kafka", new String[] {"BACKSTAGE_KAFKA_BOOTSTRAP", "127.0.0.1:9092"});

    String providerName() {
        String name = provider != null ? provider : System.getenv().getOrDefault("BACKSTAGE_PROVIDER", "redis");
        if (!URL_ENV.containsKey(name)) {
            throw new ConfigurationException("--provider must be redis, rabbitmq or kafka, got " + name);
        }
        return name;
    }

    ProviderSettings settings() {
        String name = providerName();
        String resolved = url;
        if (resolved == null) {
            String[] env = URL_ENV.get(name);
            resolved = System.getenv().getOrDefault(env[0], env[1]);
        }
        return new ProviderSettings(name, resolved, prefix, group, null);
    }

    Provider connect() {
        return Providers.create(settings());
    }
}
