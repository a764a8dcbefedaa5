package dev.backstage.operator.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.operator.testing.RealApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The status writer of the autoscaler and the schedule firing against the real API server, from a copy older than
 * the stored pool: what the informer or a reconcile handed over before someone else wrote. The API server answers
 * 409 when only the resourceVersion is stale, and 422 when the patch computed from the old copy does not even apply
 * (a member it removes is gone; a status it adds to does not exist yet). Both must end in a write computed from a
 * fresh read, or in nothing when there is nothing to write, never in an error: the copy the caller holds stays old
 * until an event replaces it, and no event comes while nothing changes, so an error here repeated at every poll.
 */
@Tag("cluster")
class StatusPatcherOnApiServerTest {
    private static RealApiServer api;
    private static KubernetesClient client;
    private static String ns;
    private static StatusPatcher<BackstageWorkerPool> patcher;

    @BeforeAll
    static void start() {
        api = RealApiServer.shared();
        client = api.client();
        ns = api.namespace("status-patch");
        patcher = new StatusPatcher<>(
                client,
                BackstageWorkerPool.class,
                new StatusFields(Set.of("desiredReplicas", "lastScaleReason"), Set.of()));
    }

    @AfterAll
    static void stop() {
        api.deleteNamespace(ns);
    }

    @Test
    void givenAnOldCopyHoldingAFieldSomeoneRemoved_whenTheChangeRemovesItToo_thenWrittenFromAFreshRead() {
        BackstageWorkerPool stored = createWithStatus("removed", "scaled by the test", 1);
        BackstageWorkerPool old =
                copyThenAnotherWriter(stored, "[{\"op\":\"remove\",\"path\":\"/status/lastScaleReason\"}]");

        Optional<StatusPatcher.Written<BackstageWorkerPool, String>> written = patcher.update(old, copy -> {
            copy.getStatus().setLastScaleReason(null);
            copy.getStatus().setDesiredReplicas(3);
            return "changed";
        });

        assertTrue(written.isPresent(), "a write from a fresh read, not an error or a give-up");
        assertEquals("changed", written.get().result());
        BackstageWorkerPoolStatus now = client.resource(stored).get().getStatus();
        assertEquals(3, now.getDesiredReplicas());
        assertNull(now.getLastScaleReason());
        assertEquals(
                now.getDesiredReplicas(), written.get().resource().getStatus().getDesiredReplicas());
    }

    @Test
    void givenACopyWithAStatusTheServerDoesNotHaveYet_thenNothingIsWritten_andTheReconcilerWritesTheFirstStatus() {
        BackstageWorkerPool stored = client.resource(BackstageFixtures.pool(ns, "unreconciled", "jobs", "orders"))
                .create();
        BackstageWorkerPool inMemory = client.resource(stored).get();
        inMemory.setStatus(new BackstageWorkerPoolStatus()); // as a reconcile holds it before JOSDK writes it
        inMemory.getStatus().setObservedGeneration(1L);

        Optional<StatusPatcher.Written<BackstageWorkerPool, String>> written = patcher.update(inMemory, copy -> {
            if (copy.getStatus() != null) {
                copy.getStatus().setDesiredReplicas(3);
            }
            return "asked";
        });

        assertTrue(written.isPresent());
        assertNull(written.get().resource(), "no status on the server: the reconciler adds the first one");
        assertNull(client.resource(stored).get().getStatus());
    }

    @Test
    void givenAnOldCopyAndAnotherWritersField_whenTheChangeIsWritten_thenBothFieldsStand() {
        BackstageWorkerPool stored = createWithStatus("conflict", "first reason", 1);
        BackstageWorkerPool old =
                copyThenAnotherWriter(stored, "[{\"op\":\"add\",\"path\":\"/status/readyReplicas\",\"value\":2}]");

        Optional<StatusPatcher.Written<BackstageWorkerPool, String>> written = patcher.update(old, copy -> {
            copy.getStatus().setDesiredReplicas(4);
            return "changed";
        });

        assertTrue(written.isPresent());
        BackstageWorkerPoolStatus now = client.resource(stored).get().getStatus();
        assertEquals(4, now.getDesiredReplicas());
        assertEquals(2, now.getReadyReplicas(), "the other writer's field is kept");
        assertEquals("first reason", now.getLastScaleReason());
    }

    @Test
    void givenAChangeToAFieldTheWriterDoesNotOwn_thenItIsRefused_andTheStoredStatusIsUnchanged() {
        BackstageWorkerPool stored = createWithStatus("foreign", "own reason", 1);

        IllegalStateException refused = assertThrows(
                IllegalStateException.class,
                () -> patcher.update(stored, copy -> {
                    copy.getStatus().setDesiredReplicas(5);
                    copy.getStatus().setReadyReplicas(7); // the reconciler's
                    return "changed";
                }));

        assertTrue(refused.getMessage().contains("[readyReplicas]"), refused.getMessage());
        BackstageWorkerPoolStatus now = client.resource(stored).get().getStatus();
        assertEquals(1, now.getDesiredReplicas(), "nothing of the change is written");
        assertNull(now.getReadyReplicas());
    }

    /** A copy of the pool as read now, then {@code statusPatch} written by someone else: the copy is old. */
    private static BackstageWorkerPool copyThenAnotherWriter(BackstageWorkerPool stored, String statusPatch) {
        BackstageWorkerPool old = client.resource(stored).get();
        client.resource(old).subresource("status").patch(PatchContext.of(PatchType.JSON), statusPatch);
        return old;
    }

    private static BackstageWorkerPool createWithStatus(String name, String reason, int desired) {
        BackstageWorkerPool created = client.resource(BackstageFixtures.pool(ns, name, "jobs", "orders"))
                .create();
        created.setStatus(new BackstageWorkerPoolStatus());
        created.getStatus().setObservedGeneration(1L);
        created.getStatus().setLastScaleReason(reason);
        created.getStatus().setDesiredReplicas(desired);
        return client.resource(created).updateStatus();
    }
}
