package dev.backstage.operator.topology;

import dev.backstage.operator.broker.BrokerFailures;
import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.operator.broker.SecretScrubber;
import dev.backstage.operator.broker.TlsFiles;
import dev.backstage.operator.broker.TopologyProblem;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologySpec;
import dev.backstage.operator.model.CapabilityBackend;
import dev.backstage.operator.model.CapabilityStatus;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.model.SuppliedCapabilities;
import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderHealth;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.TopologyDeclarer;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The topology's broker side, through the runtime's provider: connect (URL from the Secret), check health,
 * inspect, declare what is missing, delete. Every failure comes out as a {@link TopologyProblem} whose message
 * is scrubbed of the connection's secrets; a failed connection is evicted so the next poll starts afresh.
 */
public final class TopologyBroker {
    private final ConnectionSecrets secrets;
    private final BrokerConnections connections;
    private final Function<ProviderSettings, Provider> opener;
    private final TlsFiles tlsFiles;

    /**
     * @param opener creates a provider by name ({@code Providers::create} in production: the runtime's
     *               ServiceLoader lookup, so the operator speaks no broker protocol itself)
     */
    public TopologyBroker(
            ConnectionSecrets secrets, BrokerConnections connections, Function<ProviderSettings, Provider> opener) {
        this(secrets, connections, opener, TlsFiles.inTempDir());
    }

    /** @param tlsFiles where the operator keeps its copy of the topologies' TLS Secrets for its own connections */
    public TopologyBroker(
            ConnectionSecrets secrets,
            BrokerConnections connections,
            Function<ProviderSettings, Provider> opener,
            TlsFiles tlsFiles) {
        this.secrets = Objects.requireNonNull(secrets, "secrets");
        this.connections = Objects.requireNonNull(connections, "connections");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.tlsFiles = Objects.requireNonNull(tlsFiles, "tlsFiles");
    }

    /**
     * The outcome of one declaration pass.
     *
     * @param objects       every object the topology names, in its state after the pass
     * @param redeclared    objects that were missing and have been created in this pass
     * @param capabilities  the capability report
     * @param scrubber      scrubs this connection's secrets from further text (e.g. failure details)
     */
    public record Declaration(
            String provider,
            List<DeclaredObject> objects,
            List<DeclaredObject> redeclared,
            List<CapabilityStatus> capabilities,
            SecretScrubber scrubber) {}

    /** Inspects the broker and declares what is missing (all of it, the first time). */
    public Declaration declare(BackstageTopology topology) throws TopologyProblem {
        TopologyPlan plan = TopologyPlan.of(topology);
        Connected connected = connect(topology, plan, secrets);
        String uid = topology.getMetadata().getUid();
        TopologyDeclarer declarer = connected.provider().declarer();
        List<DeclaredObject> objects;
        try {
            objects = declarer.inspect(plan.request());
        } catch (RuntimeException e) {
            connections.evict(uid);
            throw BrokerFailures.classify("inspecting " + plan.provider() + " objects", e, connected.scrubber());
        }
        List<DeclaredObject> redeclared = List.of();
        if (objects.stream().anyMatch(o -> o.state() != DeclaredObject.State.EXISTED)) {
            try {
                objects = declarer.declare(plan.request());
            } catch (RuntimeException e) {
                connections.evict(uid);
                throw BrokerFailures.classify("declaring " + plan.provider() + " objects", e, connected.scrubber());
            }
            redeclared = objects.stream()
                    .filter(o -> o.state() == DeclaredObject.State.CREATED)
                    .toList();
        }
        requireSuppliedSecrets(topology);
        return new Declaration(
                plan.provider(),
                objects,
                redeclared,
                CapabilityReport.of(topology.getSpec(), connected.provider()),
                connected.scrubber());
    }

    /** Deletes every object the topology names (deletionPolicy delete), then closes the connection. */
    public Declaration delete(BackstageTopology topology) throws TopologyProblem {
        TopologyPlan plan = TopologyPlan.of(topology);
        // The Secret as it is now: a user who changed it and then deleted the topology means the new credentials.
        Connected connected = connect(topology, plan, secrets.uncached());
        try {
            List<DeclaredObject> deleted = connected.provider().declarer().delete(plan.request());
            return new Declaration(plan.provider(), deleted, List.of(), List.of(), connected.scrubber());
        } catch (RuntimeException e) {
            throw BrokerFailures.classify("deleting " + plan.provider() + " objects", e, connected.scrubber());
        } finally {
            connections.evict(topology.getMetadata().getUid());
        }
    }

    /** Closes the topology's connection, if one is open. */
    public void forget(BackstageTopology topology) {
        connections.evict(topology.getMetadata().getUid());
    }

    private record Connected(Provider provider, SecretScrubber scrubber) {}

    private Connected connect(BackstageTopology topology, TopologyPlan plan, ConnectionSecrets secrets)
            throws TopologyProblem {
        String namespace = topology.getMetadata().getNamespace();
        String uid = topology.getMetadata().getUid();
        ConnectionSecrets.ResolvedSecret secret =
                secrets.resolve(namespace, "spec.connection", topology.getSpec().getConnection());
        // Read on every connect, like the URL: a rotated CA or client certificate changes the fingerprint below, so
        // the next reconcile replaces the connection without a restart.
        ConnectionSecrets.TlsMaterial material =
                secrets.resolveTls(namespace, "spec.tls", topology.getSpec().getTls());
        SecretScrubber scrubber = SecretScrubber.forUrls(secret.url()).and(material.key());
        TlsFiles.Written tls = tlsFiles.write(
                material, topology.getSpec().getTls(), topology.getSpec().getProvider());
        Provider provider;
        try {
            provider = connections.acquire(
                    uid,
                    plan.fingerprint(secret) + "|tls:" + tls.fingerprint(),
                    () -> opener.apply(plan.providerSettings(secret.url(), tls.options())));
        } catch (BrokerConnections.ClosedException stopping) {
            throw stopping;
        } catch (Exception e) {
            throw BrokerFailures.classify("connecting to " + plan.provider(), e, scrubber);
        }
        ProviderHealth health = provider.health();
        if (!health.up()) {
            connections.evict(uid);
            String reason = BrokerFailures.reasonForMessage(health.detail());
            throw new TopologyProblem(
                    BrokerFailures.isCredentialOrCertificate(reason) ? reason : ReadyReason.BROKER_UNREACHABLE,
                    scrubber.scrub(plan.provider() + " health check: " + health.detail()));
        }
        return new Connected(provider, scrubber);
    }

    /** The Secrets of separately supplied capabilities must exist too: the workers' Deployment maps them. */
    private void requireSuppliedSecrets(BackstageTopology topology) throws TopologyProblem {
        BackstageTopologySpec spec = topology.getSpec();
        SuppliedCapabilities supplied = spec.getCapabilities();
        if (supplied == null) {
            return;
        }
        String namespace = topology.getMetadata().getNamespace();
        requireSecret(namespace, "spec.capabilities.delays", supplied.getDelays());
        requireSecret(namespace, "spec.capabilities.dedupe", supplied.getDedupe());
    }

    private void requireSecret(String namespace, String field, CapabilityBackend backend) throws TopologyProblem {
        if (backend != null) {
            secrets.resolve(namespace, field + ".connection", backend.getConnection());
            secrets.resolveTls(namespace, field + ".tls", backend.getTls());
        }
    }
}
