package dev.backstage.operator.broker;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.runtime.spi.ConfigurationException;
import dev.backstage.runtime.spi.ConnectionFailure;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open {@link Provider} per topology for the operator's backlog probes, shared by every pool of that topology
 * and reused across polls (a connection per poll would cost a handshake every few seconds per pool).
 *
 * <p>Callers {@link #lease} a provider for one use and close the lease. An entry is rebuilt when what it was built
 * from changes: the topology's provider settings, or the Secret's resourceVersion (read with the topology
 * reconciler's {@link ConnectionSecrets}, again every {@code secretRefresh}, so an edited Secret takes effect
 * without a watch on Secrets).
 *
 * <p>Unlike the topology reconciler's {@code BrokerConnections} (one user per topology at a time: JOSDK never
 * reconciles one topology on two threads), several pools use one topology's provider at once, hence the leases. A caller that saw the broker
 * fail {@link Lease#invalidate() invalidates} its lease, so a broken connection is not reused; the next lease
 * connects afresh. A provider is closed once it is replaced or dropped <em>and</em> no lease still uses it, so a
 * pool is never cut off mid-call because another pool of the same topology saw an error.
 *
 * <p>A failed connection attempt is remembered for {@code reconnectDelay}: meanwhile leases of that topology fail
 * at once with the same error, so a broker that is down costs one attempt per delay, not one per pool and poll.
 *
 * <p>Connecting and closing happen outside the lock: a slow broker never blocks another topology's pools.
 *
 * <p>Kept as one class: the per-topology entries, their leases and the rebuild on a changed Secret share one entry and
 * its count of users; split apart, a provider could be closed under a lease.
 */
public final class ProbeProviders implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProbeProviders.class);

    private final ConnectionSecrets secrets;
    private final Function<ProviderSettings, Provider> opener;
    private final TlsFiles tlsFiles = TlsFiles.inTempDir();
    private final Clock clock;
    private final Duration secretRefresh;
    private final Duration reconnectDelay;
    private final Map<String, Entry> entries = new HashMap<>();
    private final Map<String, Failure> failures = new HashMap<>();
    private boolean closed;

    /**
     * @param opener        creates a provider, normally {@code Providers::create}; may connect and may throw
     * @param secretRefresh  how long a Secret read stays trusted before it is read again
     * @param reconnectDelay how long a failed connection attempt is reported before the next one
     */
    public ProbeProviders(
            ConnectionSecrets secrets,
            Function<ProviderSettings, Provider> opener,
            Clock clock,
            Duration secretRefresh,
            Duration reconnectDelay) {
        this.secrets = Objects.requireNonNull(secrets, "secrets");
        this.opener = Objects.requireNonNull(opener, "opener");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.secretRefresh = Objects.requireNonNull(secretRefresh, "secretRefresh");
        this.reconnectDelay = Objects.requireNonNull(reconnectDelay, "reconnectDelay");
    }

    /** A failed connection attempt: what it was made from, and its error, until {@code retryAt}. */
    private record Failure(String fingerprint, BrokerConnectionException error, Instant retryAt) {}

    private static final class Entry {
        final String uid;
        final String settingsPrint;
        final String secretVersion;
        final Provider provider;
        Instant secretReadAt;
        int users;
        boolean retired;

        Entry(String uid, String settingsPrint, String secretVersion, Provider provider, Instant secretReadAt) {
            this.uid = uid;
            this.settingsPrint = settingsPrint;
            this.secretVersion = secretVersion;
            this.provider = provider;
            this.secretReadAt = secretReadAt;
        }
    }

    /** The use of one provider; close it when done (try-with-resources). */
    public final class Lease implements AutoCloseable {
        private final Entry entry;
        private boolean released;

        private Lease(Entry entry) {
            this.entry = entry;
        }

        public Provider provider() {
            return entry.provider;
        }

        /** The broker failed through this provider: do not hand it out again. */
        public void invalidate() {
            synchronized (ProbeProviders.this) {
                if (entries.get(entry.uid) == entry) {
                    entries.remove(entry.uid);
                }
                entry.retired = true;
            }
        }

        @Override
        public void close() {
            Provider toClose = null;
            synchronized (ProbeProviders.this) {
                if (released) {
                    return;
                }
                released = true;
                entry.users--;
                if (entry.retired && entry.users == 0) {
                    toClose = entry.provider;
                }
            }
            closeQuietly(entry.uid, toClose);
        }
    }

    /**
     * A provider for the topology's broker, connecting if needed. Reads the Secret when the cached one is older than
     * {@code secretRefresh}; blocks while connecting, so call it off the reconciler threads.
     */
    public Lease lease(BackstageTopology topology) throws BrokerConnectionException {
        String uid = topology.getMetadata().getUid();
        String settingsPrint = TopologyProviderSettings.fingerprint(topology);
        Instant now = clock.instant();
        synchronized (this) {
            ensureOpen();
            Entry current = entries.get(uid);
            if (current != null
                    && current.settingsPrint.equals(settingsPrint)
                    && now.isBefore(current.secretReadAt.plus(secretRefresh))) {
                current.users++;
                return new Lease(current);
            }
        }
        ConnectionSecrets.ResolvedSecret url;
        ConnectionSecrets.TlsMaterial material;
        try {
            url = secrets.resolve(
                    topology.getMetadata().getNamespace(),
                    "spec.connection of BackstageTopology '"
                            + topology.getMetadata().getName() + "'",
                    topology.getSpec().getConnection());
            material = secrets.resolveTls(
                    topology.getMetadata().getNamespace(),
                    "spec.tls of BackstageTopology '" + topology.getMetadata().getName() + "'",
                    topology.getSpec().getTls());
        } catch (TopologyProblem e) {
            throw new BrokerConnectionException(e.reason(), e.getMessage(), e);
        }
        TlsFiles.Written tls = tlsFiles.write(
                material, topology.getSpec().getTls(), topology.getSpec().getProvider());
        // The Secrets' state: the URL Secret's version and the TLS content's digest (a rotation changes either).
        String secretVersion = url.resourceVersion() + "|tls:" + tls.fingerprint();
        synchronized (this) {
            ensureOpen();
            Entry current = entries.get(uid);
            if (current != null
                    && current.settingsPrint.equals(settingsPrint)
                    && Objects.equals(current.secretVersion, secretVersion)) {
                current.secretReadAt = now;
                current.users++;
                return new Lease(current);
            }
        }
        String fingerprint = settingsPrint + "|" + secretVersion;
        synchronized (this) {
            Failure failure = failures.get(uid);
            if (failure != null && failure.fingerprint().equals(fingerprint) && now.isBefore(failure.retryAt())) {
                throw failure.error();
            }
        }
        Provider opened;
        try {
            opened = open(topology, url.url(), tls.options(), material.key());
        } catch (BrokerConnectionException e) {
            synchronized (this) {
                failures.put(uid, new Failure(fingerprint, e, now.plus(reconnectDelay)));
            }
            throw e;
        }
        Entry fresh = new Entry(uid, settingsPrint, secretVersion, opened, now);
        List<Provider> toClose = new ArrayList<>();
        Lease lease;
        synchronized (this) {
            if (closed) {
                toClose.add(opened);
                lease = null;
            } else {
                Entry current = entries.get(uid);
                if (current != null
                        && current.settingsPrint.equals(settingsPrint)
                        && Objects.equals(current.secretVersion, secretVersion)) {
                    toClose.add(opened); // another pool of this topology connected first: share its provider
                    current.users++;
                    lease = new Lease(current);
                } else {
                    failures.remove(uid);
                    entries.put(uid, fresh);
                    if (current != null) {
                        retire(current, toClose);
                    }
                    fresh.users++;
                    lease = new Lease(fresh);
                }
            }
        }
        toClose.forEach(p -> closeQuietly(uid, p));
        if (lease == null) {
            throw new IllegalStateException("the probe providers are closed (the operator is stopping)");
        }
        return lease;
    }

    /** Drops (and closes, once unused) the providers of topologies not in {@code inUse}. */
    public void retainOnly(Set<String> inUse) {
        List<Provider> toClose = new ArrayList<>();
        List<String> uids = new ArrayList<>();
        synchronized (this) {
            failures.keySet().retainAll(inUse);
            for (var it = entries.values().iterator(); it.hasNext(); ) {
                Entry entry = it.next();
                if (!inUse.contains(entry.uid)) {
                    it.remove();
                    failures.remove(entry.uid);
                    uids.add(entry.uid);
                    retire(entry, toClose);
                }
            }
        }
        if (!uids.isEmpty()) {
            LOG.info("dropping the probe connections of topologies no pool uses any more (uids {})", uids);
        }
        toClose.forEach(p -> closeQuietly("(unused)", p));
    }

    /** Providers currently cached (for tests and metrics). */
    public synchronized int size() {
        return entries.size();
    }

    @Override
    public void close() {
        List<Provider> toClose = new ArrayList<>();
        synchronized (this) {
            closed = true;
            entries.values().forEach(entry -> retire(entry, toClose));
            entries.clear();
        }
        toClose.forEach(p -> closeQuietly("(closing)", p));
    }

    private void retire(Entry entry, List<Provider> toClose) {
        entry.retired = true;
        if (entry.users == 0) {
            toClose.add(entry.provider);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the probe providers are closed (the operator is stopping)");
        }
    }

    private Provider open(BackstageTopology topology, String url, Map<String, String> tlsOptions, String key)
            throws BrokerConnectionException {
        ProviderSettings settings = TopologyProviderSettings.of(topology, url, tlsOptions);
        SecretScrubber scrubber = SecretScrubber.forUrls(url).and(key);
        String what = "the " + settings.provider() + " broker of BackstageTopology '"
                + topology.getMetadata().getName() + "'";
        try {
            return opener.apply(settings);
        } catch (ConfigurationException e) {
            throw new BrokerConnectionException(
                    BrokerConnectionException.PROVIDER_UNAVAILABLE,
                    "cannot create a client for " + what + ": " + scrubber.scrub(e.getMessage()),
                    e);
        } catch (RuntimeException e) {
            throw new BrokerConnectionException(
                    ConnectionFailure.of(e)
                            .map(ConnectionFailure::reason)
                            .orElse(BrokerConnectionException.BROKER_UNREACHABLE),
                    "cannot connect to " + what + ": " + scrubber.scrub(describe(e)),
                    e);
        }
    }

    private static String describe(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        Throwable cause = e.getCause();
        if (cause != null && cause.getMessage() != null && !message.contains(cause.getMessage())) {
            message = message + " (" + cause.getMessage() + ")";
        }
        return message;
    }

    private static void closeQuietly(String uid, Provider provider) {
        if (provider == null) {
            return;
        }
        try {
            provider.close();
        } catch (RuntimeException e) {
            // A broken connection may fail to close; the provider is dropped either way.
            LOG.warn(
                    "closing the {} probe connection of topology uid {} failed: {}",
                    provider.name(),
                    uid,
                    e.toString());
        }
    }
}
