package dev.backstage.runtime.cli;

import dev.backstage.runtime.api.CapabilityMissingException;
import dev.backstage.runtime.spi.BackstageException;
import dev.backstage.runtime.spi.BrokerTls;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.runtime.spi.Redaction;
import java.util.Map;
import picocli.CommandLine.Option;

/** Which broker the CLI talks to: flags first, then environment variables. */
final class BrokerOptions {
    @Option(names = "--provider", description = "redis (default), rabbitmq or kafka; env BACKSTAGE_PROVIDER")
    String provider;

    @Option(
            names = "--url",
            description =
                    "broker URL; env BACKSTAGE_REDIS_URL / BACKSTAGE_RABBITMQ_URL / "
                            + "BACKSTAGE_KAFKA_BOOTSTRAP (defaults: redis://127.0.0.1:6379, amqp://guest:guest@127.0.0.1:5672, 127.0.0.1:9092)")
    String url;

    @Option(names = "--prefix", description = "key prefix (default backstage)")
    String prefix;

    @Option(names = "--group", description = "consumer group (default backstage-workers)")
    String group;

    @Option(
            names = "--tls-ca-file",
            description = "PEM CA bundle to trust for the broker's certificate (rediss://, amqps://, Kafka)")
    String tlsCaFile;

    @Option(names = "--tls-cert-file", description = "PEM client certificate to present (with --tls-key-file)")
    String tlsCertFile;

    @Option(names = "--tls-key-file", description = "PEM private key of --tls-cert-file")
    String tlsKeyFile;

    @Option(
            names = "--redis-option",
            paramLabel = "KEY=VALUE",
            description = "a Redis provider option, e.g."
                    + " mode=cluster (a redis:// URL naming one node of a cluster), waitReplicas=1, waitTimeoutMs=2000;"
                    + " repeatable (kubectl backstage passes the topology's spec.redis)")
    Map<String, String> redisOptions;

    @Option(names = "--tls", description = "Kafka only: TLS with the JVM's default roots (the TLS file flags imply it)")
    boolean kafkaTls;

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
        Map<String, String> options = new java.util.TreeMap<>();
        putIfSet(options, BrokerTls.OPT_CA_FILE, tlsCaFile);
        putIfSet(options, BrokerTls.OPT_CERT_FILE, tlsCertFile);
        putIfSet(options, BrokerTls.OPT_KEY_FILE, tlsKeyFile);
        if (redisOptions != null && !redisOptions.isEmpty()) {
            if (!name.equals("redis")) {
                throw new ConfigurationException("--redis-option is for --provider redis, not " + name + ": drop it");
            }
            options.putAll(redisOptions);
        }
        if (kafkaTls) {
            if (!name.equals("kafka")) {
                throw new ConfigurationException(
                        "--tls is for Kafka; Redis and RabbitMQ take TLS from rediss:// or amqps://");
            }
            options.put("tls", "true");
        }
        return new ProviderSettings(name, resolved, prefix, group, options);
    }

    private static void putIfSet(Map<String, String> options, String key, String value) {
        if (value != null && !value.isBlank()) {
            options.put(key, value);
        }
    }

    /** What a command does with a connected provider. */
    @FunctionalInterface
    interface Work<T> {
        T run(Provider provider) throws Exception;
    }

    /**
     * Connects, runs {@code work}, closes. Bad input (a {@link ConfigurationException}, a missing capability,
     * an {@link IllegalArgumentException}) passes through; any other failure becomes a {@link BrokerFailure}
     * that names the broker with its credentials masked and the innermost cause.
     */
    <T> T use(Work<T> work) {
        ProviderSettings settings = settings();
        try (Provider provider = Providers.create(settings)) {
            return work.run(provider);
        } catch (BackstageException e) {
            if (e instanceof ConfigurationException || e instanceof CapabilityMissingException) {
                throw e;
            }
            throw failure(settings, e);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw failure(settings, e);
        }
    }

    private static BrokerFailure failure(ProviderSettings settings, Exception e) {
        String where = settings.redactedUrl();
        String shown = Redaction.text(e.getMessage(), settings.url());
        String message = shown != null && shown.contains(where)
                ? shown
                : settings.provider() + " at " + where + ": " + Redaction.text(innermost(e), settings.url());
        return new BrokerFailure(
                message.replaceAll("\\s*\\R\\s*", " ") + " (check --url / --provider and that the broker is running)",
                e);
    }

    private static String innermost(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text =
                root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
        return root == e || e.getMessage() == null ? text : e.getMessage() + ": " + text;
    }
}
