package dev.backstage.operator.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The per-topology provider cache, with real Redis providers (a closed one reports itself down). */
@Tag("broker")
class BrokerConnectionsTest {
    private static final ProviderSettings REDIS = ProviderSettings.of("redis", "redis://127.0.0.1:6379");

    @Test
    void givenTheSameFingerprint_thenTheProviderIsReused_andANewFingerprintClosesTheOldOne() throws Exception {
        try (BrokerConnections connections = new BrokerConnections()) {
            Provider first = connections.acquire("uid-1", "rv-1", () -> Providers.create(REDIS));
            assertSame(first, connections.acquire("uid-1", "rv-1", () -> Providers.create(REDIS)));
            assertTrue(first.health().up());

            Provider second = connections.acquire("uid-1", "rv-2", () -> Providers.create(REDIS));

            assertNotSame(first, second);
            assertFalse(first.health().up(), "the provider of the old Secret version is closed");
            assertTrue(second.health().up());
            assertEquals(1, connections.size());
        }
    }

    @Test
    void givenEvictionAndClose_thenProvidersAreClosedAndNoNewOneIsOpened() throws Exception {
        BrokerConnections connections = new BrokerConnections();
        Provider a = connections.acquire("uid-a", "rv", () -> Providers.create(REDIS));
        Provider b = connections.acquire("uid-b", "rv", () -> Providers.create(REDIS));

        connections.evict("uid-a");
        assertFalse(a.health().up());
        assertTrue(b.health().up());

        connections.close();
        assertFalse(b.health().up());
        assertEquals(0, connections.size());
        assertThrows(
                BrokerConnections.ClosedException.class,
                () -> connections.acquire("uid-c", "rv", () -> Providers.create(REDIS)));
    }

    @Test
    void givenAClosedExceptionWrappedByJosdk_whenCheckedForStopping_thenItIsFoundInTheCauseChain() {
        BrokerConnections connections = new BrokerConnections();
        connections.close();
        BrokerConnections.ClosedException closed = assertThrows(
                BrokerConnections.ClosedException.class,
                () -> connections.acquire("uid", "rv", () -> Providers.create(REDIS)));
        RuntimeException aggregate = new RuntimeException("Exception(s) during workflow execution");
        aggregate.addSuppressed(closed);

        assertTrue(BrokerConnections.ClosedException.in(closed));
        assertTrue(BrokerConnections.ClosedException.in(
                new io.javaoperatorsdk.operator.OperatorException(new IllegalStateException("reconcile", closed))));
        assertTrue(BrokerConnections.ClosedException.in(new io.javaoperatorsdk.operator.OperatorException(aggregate)));
        assertFalse(BrokerConnections.ClosedException.in(
                new io.javaoperatorsdk.operator.OperatorException(new IllegalStateException("a broker failure"))));
    }
}
