package dev.backstage.operator.admission;

import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.DelayedExchangeMode;
import dev.backstage.operator.model.ProviderType;
import dev.backstage.operator.model.RabbitMqSettings;
import dev.backstage.operator.model.SuppliedCapabilities;
import java.util.Set;

/**
 * What each provider supplies by itself, as admission must know it without a broker connection (the topology
 * reconciler reports what the live provider actually supplies). Mirrors the runtime providers: Redis supplies
 * everything; RabbitMQ jobs, topics and delays (delayed-message plugin or the built-in TTL fallback, none in mode
 * {@code supplied}); Kafka jobs and topics. Only Redis supplies delays or dedupe to another provider's jobs.
 */
public final class ProviderCapabilities {
    /** Backends that can supply delays or dedupe separately ({@code spec.capabilities}). */
    public static final Set<ProviderType> SEPARATE_SUPPLIERS = Set.of(ProviderType.REDIS);

    private ProviderCapabilities() {}

    public static boolean topics(ProviderType provider) {
        return provider == ProviderType.REDIS || provider == ProviderType.RABBITMQ || provider == ProviderType.KAFKA;
    }

    public static boolean dedupe(ProviderType provider) {
        return provider == ProviderType.REDIS;
    }

    /** Whether the provider itself delays jobs for this topology (RabbitMQ depends on its delayed-exchange mode). */
    public static boolean delays(BackstageTopologySpec spec) {
        return switch (spec.getProvider()) {
            case REDIS -> true;
            case KAFKA -> false;
            case RABBITMQ -> delayedExchange(spec) != DelayedExchangeMode.SUPPLIED;
        };
    }

    /** Whether the topology has delays from anywhere: supplied separately, or by its provider. */
    public static boolean hasDelays(BackstageTopologySpec spec) {
        SuppliedCapabilities supplied = spec.getCapabilities();
        return (supplied != null && supplied.getDelays() != null) || (spec.getProvider() != null && delays(spec));
    }

    public static DelayedExchangeMode delayedExchange(BackstageTopologySpec spec) {
        RabbitMqSettings rabbit = spec.getRabbitmq();
        return rabbit == null || rabbit.getDelayedExchange() == null
                ? DelayedExchangeMode.AUTO
                : rabbit.getDelayedExchange();
    }
}
