package dev.backstage.operator.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.MockKubernetes;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import dev.backstage.runtime.spi.Provider;
import dev.backstage.runtime.spi.ProviderSettings;
import dev.backstage.runtime.spi.Providers;
import dev.backstage.testsupport.UniqueNames;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Provider reuse and release per topology, with real Redis providers and the Secret on the mock API server. */
@Tag("broker")
class ProbeProvidersTest {
    private static final String REDIS = System.getenv().getOrDefault("BACKSTAGE_REDIS_URL", "redis://127.0.0.1:6379");
    private static MockKubernetes mock;
    private static KubernetesClient client;

    private final List<Provider> opened = new CopyOnWriteArrayList<>();
    private final Function<ProviderSettings, Provider> opener = settings -> {
        Provider provider = Providers.create(settings);
        opened.add(provider);
        return provider;
    };
    private ProbeProviders providers;
    private String ns;

    @BeforeAll
    static void start() {
        mock = MockKubernetes.start();
        client = mock.client();
    }

    @AfterAll
    static void stop() {
        mock.close();
    }

    @AfterEach
    void closeAll() {
        if (providers != null) {
            providers.close();
        }
        opened.forEach(Provider::close);
    }

    private ProbeProviders providers(Duration secretRefresh, Duration reconnectDelay) {
        providers = new ProbeProviders(
                new ConnectionSecrets(client), opener, Clock.systemUTC(), secretRefresh, reconnectDelay);
        return providers;
    }

    private BackstageTopology topology(String name, String url) {
        if (ns == null) {
            ns = UniqueNames.prefix("probes");
            client.namespaces()
                    .resource(new NamespaceBuilder()
                            .withNewMetadata()
                            .withName(ns)
                            .endMetadata()
                            .build())
                    .create();
        }
        client.secrets()
                .inNamespace(ns)
                .resource(new SecretBuilder()
                        .withNewMetadata()
                        .withName(name + "-redis")
                        .endMetadata()
                        .addToStringData("url", url)
                        .build())
                .create();
        BackstageTopology topology = BackstageFixtures.redisTopology(ns, name, "orders");
        topology.getSpec().setKeyPrefix(UniqueNames.prefix("bsprobe"));
        return client.resource(topology).create();
    }

    /** A closed Redis provider fails its probe with BrokerUnreachable (lettuce refuses commands once closed). */
    private static boolean closed(Provider provider) {
        try {
            provider.backlogProbe().measure(List.of("orders"), "g");
            return false;
        } catch (BacklogUnavailableException e) {
            return true;
        }
    }

    @Test
    void givenPoolsOfOneTopology_thenTheyShareOneProvider_untilTheTopologyIsNoLongerUsed() throws Exception {
        ProbeProviders providers = providers(Duration.ofMinutes(1), Duration.ofSeconds(5));
        BackstageTopology topology = topology("shared", REDIS);
        Provider first;
        try (ProbeProviders.Lease a = providers.lease(topology);
                ProbeProviders.Lease b = providers.lease(topology)) {
            first = a.provider();
            assertSame(first, b.provider());
            a.provider().backlogProbe().measure(List.of("orders"), "g");
        }
        assertEquals(1, opened.size());
        assertEquals(1, providers.size());

        providers.retainOnly(Set.of());
        assertEquals(0, providers.size());
        assertTrue(closed(first), "dropped and unused: closed");
    }

    @Test
    void givenAFailureSeenThroughALease_thenTheProviderIsReplaced_butClosedOnlyWhenTheLastUserLetsGo()
            throws Exception {
        ProbeProviders providers = providers(Duration.ofMinutes(1), Duration.ofSeconds(5));
        BackstageTopology topology = topology("broken", REDIS);
        ProbeProviders.Lease other = providers.lease(topology);
        Provider failing;
        try (ProbeProviders.Lease lease = providers.lease(topology)) {
            failing = lease.provider();
            lease.invalidate();
        }
        assertTrue(!closed(failing), "another pool is still using it");
        try (ProbeProviders.Lease fresh = providers.lease(topology)) {
            assertNotSame(failing, fresh.provider(), "a failed provider is not handed out again");
        }
        other.close();
        assertTrue(closed(failing), "closed once its last lease is released");
        assertEquals(2, opened.size());
    }

    @Test
    void givenAnEditedSecret_thenTheNextLeaseAfterTheRefreshConnectsWithTheNewUrl() throws Exception {
        ProbeProviders providers = providers(Duration.ZERO, Duration.ofSeconds(5));
        BackstageTopology topology = topology("edited", REDIS);
        Provider before;
        try (ProbeProviders.Lease lease = providers.lease(topology)) {
            before = lease.provider();
        }
        try (ProbeProviders.Lease same = providers.lease(topology)) {
            assertSame(before, same.provider(), "Secret read again, unchanged: same provider");
        }
        client.secrets()
                .inNamespace(ns)
                .withName("edited-redis")
                .edit(s -> new SecretBuilder(s)
                        .addToStringData("url", REDIS + "/0")
                        .build());
        try (ProbeProviders.Lease after = providers.lease(topology)) {
            assertNotSame(before, after.provider());
        }
        assertTrue(closed(before), "the old one is closed");
    }

    @Test
    void givenAnUnreachableBroker_thenTheFailureIsReportedWithoutCredentials_andNotRetriedBeforeTheDelay() {
        ProbeProviders providers = providers(Duration.ofMinutes(1), Duration.ofMinutes(1));
        BackstageTopology topology = topology("down", "redis://app:hunter2@127.0.0.1:1");
        BrokerConnectionException first =
                assertThrows(BrokerConnectionException.class, () -> providers.lease(topology));
        assertEquals(BrokerConnectionException.BROKER_UNREACHABLE, first.reason());
        assertTrue(
                first.getMessage().startsWith("cannot connect to the redis broker of BackstageTopology 'down'"),
                first.getMessage());
        assertTrue(!first.getMessage().contains("hunter2"), first.getMessage());
        BrokerConnectionException again =
                assertThrows(BrokerConnectionException.class, () -> providers.lease(topology));
        assertSame(first, again, "within the reconnect delay: the remembered failure, no new attempt");
    }

    @Test
    void givenAMissingSecret_thenSecretNotFound() {
        ProbeProviders providers = providers(Duration.ofMinutes(1), Duration.ofSeconds(5));
        BackstageTopology topology = topology("nosecret", REDIS);
        client.secrets().inNamespace(ns).withName("nosecret-redis").delete();
        BrokerConnectionException e = assertThrows(BrokerConnectionException.class, () -> providers.lease(topology));
        assertEquals(ReadyReason.SECRET_NOT_FOUND, e.reason());
        assertTrue(e.getMessage().contains("Secret 'nosecret-redis'"), e.getMessage());
    }
}
