package dev.backstage.operator.topology;

import dev.backstage.runtime.spi.Provider;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open {@link Provider} per topology, reused across polls. An entry is keyed by the topology's uid and
 * remembers a fingerprint of what it was built from (the Secret's resourceVersion and the non-secret settings):
 * when the fingerprint changes the old provider is closed and a new one created, so an edited Secret or spec
 * takes effect on the next reconcile. Entries are evicted (and closed) when a broker call fails, so a broken
 * connection is never reused, and when the topology goes away.
 *
 * <p>JOSDK never reconciles one resource on two threads at once, but different topologies do run in parallel,
 * hence the lock around the map (never held while a provider connects or closes).
 */
public final class BrokerConnections implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerConnections.class);

    /** Creates a provider; may connect, and may throw the client's exception. */
    @FunctionalInterface
    public interface ProviderOpener {
        Provider open() throws Exception;
    }

    /** Thrown once the operator is stopping: not a broker failure, so nothing to report on the topology. */
    public static final class ClosedException extends IllegalStateException {
        ClosedException() {
            super("broker connections are closed (the operator is stopping)");
        }

        /**
         * Whether {@code e} or any of its causes is a {@code ClosedException}: JOSDK hands the reconciler's
         * exception over wrapped (an {@code OperatorException}, or an aggregate of a workflow's failures).
         */
        public static boolean in(Throwable e) {
            java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
            for (Throwable t = e; t != null && seen.add(t); t = t.getCause()) {
                if (t instanceof ClosedException) {
                    return true;
                }
                for (Throwable suppressed : t.getSuppressed()) {
                    if (suppressed instanceof ClosedException) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    private record Entry(String fingerprint, Provider provider) {}

    private final Map<String, Entry> entries = new HashMap<>();
    private boolean closed;

    /** The cached provider for {@code uid} when its fingerprint matches, else a new one from {@code opener}. */
    public Provider acquire(String uid, String fingerprint, ProviderOpener opener) throws Exception {
        Objects.requireNonNull(uid, "uid");
        Entry stale;
        synchronized (entries) {
            if (closed) {
                throw new ClosedException();
            }
            Entry current = entries.get(uid);
            if (current != null && current.fingerprint().equals(fingerprint)) {
                return current.provider();
            }
            stale = entries.remove(uid);
        }
        closeQuietly(uid, stale);
        Provider opened = opener.open();
        Entry previous;
        synchronized (entries) {
            if (closed) {
                closeQuietly(uid, new Entry(fingerprint, opened));
                throw new ClosedException();
            }
            previous = entries.put(uid, new Entry(fingerprint, opened));
        }
        closeQuietly(uid, previous);
        return opened;
    }

    /** Closes and forgets the provider of {@code uid}, if any. */
    public void evict(String uid) {
        Entry entry;
        synchronized (entries) {
            entry = entries.remove(uid);
        }
        closeQuietly(uid, entry);
    }

    /** How many providers are open (for tests and metrics). */
    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    @Override
    public void close() {
        Map<String, Entry> all;
        synchronized (entries) {
            closed = true;
            all = new HashMap<>(entries);
            entries.clear();
        }
        all.forEach(BrokerConnections::closeQuietly);
    }

    private static void closeQuietly(String uid, Entry entry) {
        if (entry == null) {
            return;
        }
        try {
            entry.provider().close();
        } catch (RuntimeException e) {
            // Closing a broken connection may fail; the provider is dropped either way, so log and move on.
            LOG.warn(
                    "closing the {} connection of topology uid {} failed: {}",
                    entry.provider().name(),
                    uid,
                    e.toString());
        }
    }
}
