package dev.backstage.operator.console;

import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.RealApiServer;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * How long the console's overview takes at N pools (default 1,000) on the real API server: the pools (with a status)
 * in one namespace, a read-only ServiceAccount signed in over HTTP, then the overview requested once cold (its
 * SubjectAccessReview included) and {@code rounds} times warm, against one pool's page requested as often. Prints
 * both sides, the 300 ms target, the page's size and the history memory at N pools. Not a test: run it with
 * {@code BENCH_MODULE=operator bin/bench dev.backstage.operator.console.ConsoleOverviewBenchmark [pools] [rounds]}.
 */
public final class ConsoleOverviewBenchmark {
    private ConsoleOverviewBenchmark() {}

    public static void main(String[] args) throws Exception {
        int pools = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        RealApiServer api = RealApiServer.shared();
        KubernetesClient client = api.client();
        String ns = api.namespace("console-bench");
        EventRecorder events = new EventRecorder(client, "backstage-operator", "console-bench", Clock.systemUTC());
        Console console = null;
        try {
            long created = System.nanoTime();
            createPools(client, ns, pools);
            System.out.printf("created %d pools with a status in %.1f s%n", pools, (System.nanoTime() - created) / 1e9);
            console = new Console(client, ConsoleSettings.defaults(0), Set.of(ns), events, Clock.systemUTC());
            console.start();
            Console started = console;
            org.awaitility.Awaitility.await("the console's informer holds every pool")
                    .atMost(Duration.ofMinutes(2))
                    .until(() -> started.cache().pools().size() >= pools);
            ConsoleClient viewer = new ConsoleClient(console.port());
            HttpResponse<String> signIn = viewer.signIn(viewerToken(client, ns));
            if (signIn.statusCode() != 303) {
                throw new IllegalStateException("sign-in failed: " + signIn.statusCode());
            }
            long t0 = System.nanoTime();
            HttpResponse<String> first = viewer.get("/");
            double cold = (System.nanoTime() - t0) / 1e6;
            int rows = first.body().split("class=\"pool\"", -1).length - 1;
            if (rows != pools) {
                throw new IllegalStateException("the overview shows " + rows + " pools, expected " + pools);
            }
            double[] overview = time(viewer, "/", rounds);
            double[] onePool = time(viewer, "/pools/" + ns + "/pool-0", rounds);
            System.out.printf(
                    "overview at %d pools: cold %.1f ms (one SubjectAccessReview), warm median %.1f ms"
                            + " (p90 %.1f, max %.1f) over %d requests; page %,d bytes%n",
                    pools,
                    cold,
                    overview[0],
                    overview[1],
                    overview[2],
                    rounds,
                    first.body().length());
            System.out.printf(
                    "one pool's page:       warm median %.1f ms (p90 %.1f, max %.1f)%n",
                    onePool[0], onePool[1], onePool[2]);
            System.out.printf(
                    "overview / target: %.1f ms / 300 ms = %.2f; overview / one pool's page: %.1f / %.1f ms%n",
                    overview[0], overview[0] / 300, overview[0], onePool[0]);
            System.out.printf(
                    "history memory at %d pools: %d x %,d bytes = %.1f MiB (fixed)%n",
                    pools, pools, PoolHistory.bytesFor(360), pools * PoolHistory.bytesFor(360) / 1048576.0);
        } finally {
            if (console != null) {
                console.close();
            }
            events.close();
            api.deleteNamespace(ns);
        }
        System.exit(0);
    }

    private static double[] time(ConsoleClient user, String path, int rounds) throws Exception {
        double[] ms = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            long t = System.nanoTime();
            int status = user.get(path).statusCode();
            ms[i] = (System.nanoTime() - t) / 1e6;
            if (status != 200) {
                throw new IllegalStateException(path + " answered " + status);
            }
        }
        java.util.Arrays.sort(ms);
        return new double[] {ms[rounds / 2], ms[(int) Math.floor(rounds * 0.9)], ms[rounds - 1]};
    }

    private static void createPools(KubernetesClient client, String ns, int pools) throws Exception {
        ExecutorService writers = Executors.newFixedThreadPool(8);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < pools; i++) {
            String name = "pool-" + i;
            int n = i;
            done.add(writers.submit(() -> {
                // The topology does not exist: no operator would render Deployments for these pools.
                client.resource(BackstageFixtures.pool(ns, name, "no-such-topology", "default"))
                        .create();
                BackstageWorkerPoolStatus status = new BackstageWorkerPoolStatus();
                status.setReadyReplicas(n % 4);
                status.setDesiredReplicas(n % 5);
                status.setLastScaleTime("2026-12-03T01:00:00Z");
                status.setLastScaleReason("backlog " + n + " needs " + (n % 5) + " workers");
                client.resources(BackstageWorkerPool.class)
                        .inNamespace(ns)
                        .withName(name)
                        .editStatus(p -> {
                            p.setStatus(status);
                            return p;
                        });
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        writers.shutdown();
    }

    private static String viewerToken(KubernetesClient client, String ns) {
        client.resource(new ServiceAccountBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName("viewer")
                        .endMetadata()
                        .build())
                .create();
        client.resource(new RoleBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName("viewer")
                        .endMetadata()
                        .addNewRule()
                        .withApiGroups("backstage.dev")
                        .withResources("backstageworkerpools", "backstagetopologies")
                        .withVerbs("get", "list")
                        .endRule()
                        .build())
                .create();
        client.resource(new RoleBindingBuilder()
                        .withNewMetadata()
                        .withNamespace(ns)
                        .withName("viewer")
                        .endMetadata()
                        .withNewRoleRef("rbac.authorization.k8s.io", "Role", "viewer")
                        .addNewSubject()
                        .withKind("ServiceAccount")
                        .withName("viewer")
                        .withNamespace(ns)
                        .endSubject()
                        .build())
                .create();
        return client.serviceAccounts()
                .inNamespace(ns)
                .withName("viewer")
                .tokenRequest(new TokenRequestBuilder()
                        .withNewSpec()
                        .withExpirationSeconds(600L)
                        .endSpec()
                        .build())
                .getStatus()
                .getToken();
    }
}
