package dev.backstage.operator.broker;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.runtime.spi.ProviderSettings;
import java.util.Map;

/**
 * A topology's jobs provider as the runtime's {@link ProviderSettings}: the same provider name, prefix, group and
 * options the workers get in their runtime.yaml (see {@code RuntimeConfigRenderer}), so the operator reads the
 * broker objects the workers use.
 */
public final class TopologyProviderSettings {
    private TopologyProviderSettings() {}

    public static ProviderSettings of(BackstageTopology topology, String url) {
        return of(topology, url, Map.of());
    }

    /** With the TLS options naming the operator's copy of the topology's tls files ({@code TlsFiles}). */
    public static ProviderSettings of(BackstageTopology topology, String url, Map<String, String> tlsOptions) {
        BackstageTopologySpec spec = topology.getSpec();
        Map<String, String> options = new java.util.TreeMap<>(options(spec));
        options.putAll(tlsOptions);
        return new ProviderSettings(
                spec.getProvider().wire(), url, spec.getKeyPrefix(), spec.getConsumerGroup(), options);
    }

    /** What the settings are built from, without the URL: when it changes, a connection must be rebuilt. */
    static String fingerprint(BackstageTopology topology) {
        BackstageTopologySpec spec = topology.getSpec();
        return String.join(
                "|",
                String.valueOf(spec.getProvider()),
                String.valueOf(spec.getKeyPrefix()),
                String.valueOf(spec.getConsumerGroup()),
                String.valueOf(options(spec)),
                String.valueOf(spec.getConnection()),
                String.valueOf(spec.getTls()));
    }

    private static Map<String, String> options(BackstageTopologySpec spec) {
        RabbitMqSettings rabbit = spec.getRabbitmq();
        if (spec.getProvider() == ProviderType.RABBITMQ) {
            return RabbitMqSettings.providerOptions(rabbit);
        }
        return dev.backstage.operator.model.RedisTopologySettings.options(spec);
    }
}
