package dev.backstage.operator.topology;

import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.CapabilityStatus;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.runtime.spi.Provider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The topology's capability report, resolved in one place the way the runtime resolves it at start-up: a
 * capability supplied separately ({@code spec.capabilities}) wins over the provider's own; jobs always come from
 * the provider. The provider's answer is asked of the live provider, not assumed from its name.
 */
public final class CapabilityReport {
    public static final String JOBS = "jobs";
    public static final String TOPICS = "topics";
    public static final String DELAYS = "delays";
    public static final String DEDUPE = "dedupe";

    private CapabilityReport() {}

    public static List<CapabilityStatus> of(BackstageTopologySpec spec, Provider provider) {
        SuppliedCapabilities supplied = spec.getCapabilities();
        String name = provider.name();
        List<CapabilityStatus> report = new ArrayList<>();
        report.add(new CapabilityStatus(JOBS, name, true, "from the provider"));
        boolean topicsDeclared = spec.getTopics() != null && !spec.getTopics().isEmpty();
        report.add(
                provider.topics().isPresent()
                        ? new CapabilityStatus(TOPICS, name, true, "from the provider")
                        : new CapabilityStatus(
                                TOPICS,
                                null,
                                false,
                                "the " + name + " provider has no topics"
                                        + (topicsDeclared
                                                ? "; remove spec.topics or use a provider with topics (redis, rabbitmq, kafka)"
                                                : "")));
        report.add(resolve(
                DELAYS,
                supplied == null ? null : supplied.getDelays(),
                provider.delays().isPresent(),
                name,
                "retries and scheduled jobs need delays: set spec.capabilities.delays (backend redis)"));
        report.add(resolve(
                DEDUPE,
                supplied == null ? null : supplied.getDedupe(),
                provider.dedupe().isPresent(),
                name,
                "enqueue with a dedupe key fails: set spec.capabilities.dedupe (backend redis) to allow it"));
        return report;
    }

    /**
     * What the report says the topology cannot do but needs: delays (every worker retries through them) and
     * topics when it declares topics. Empty when nothing is missing.
     */
    public static Optional<String> missingRequired(BackstageTopologySpec spec, List<CapabilityStatus> report) {
        List<String> missing = new ArrayList<>();
        for (CapabilityStatus c : report) {
            boolean required = DELAYS.equals(c.getCapability())
                    || JOBS.equals(c.getCapability())
                    || (TOPICS.equals(c.getCapability())
                            && spec.getTopics() != null
                            && !spec.getTopics().isEmpty());
            if (required && !Boolean.TRUE.equals(c.getSupplied())) {
                missing.add(c.getCapability() + ": " + c.getDetail());
            }
        }
        return missing.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", missing));
    }

    private static CapabilityStatus resolve(
            String capability, CapabilityBackend separate, boolean fromProvider, String provider, String missingHint) {
        if (separate != null && separate.getBackend() != null) {
            return new CapabilityStatus(
                    capability,
                    separate.getBackend().wire(),
                    true,
                    "supplied separately (spec.capabilities." + capability + ", Secret "
                            + (separate.getConnection() == null
                                    ? "?"
                                    : separate.getConnection().getSecretName()) + ")");
        }
        if (fromProvider) {
            return new CapabilityStatus(capability, provider, true, "from the provider");
        }
        return new CapabilityStatus(capability, null, false, "the " + provider + " provider has none; " + missingHint);
    }
}
