package dev.backstage.operator.topology;

import com.fasterxml.jackson.databind.JsonNode;
import dev.backstage.operator.broker.BrokerFailures;
import dev.backstage.operator.broker.SecretScrubber;
import dev.backstage.operator.broker.TopologyProblem;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageTopologyStatus;
import dev.backstage.operator.model.BrokerObjectStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.model.DeletionPolicy;
import dev.backstage.operator.model.ReadyReason;
import dev.backstage.operator.schedule.ScheduleFiring;
import dev.backstage.runtime.spi.DeclaredObject;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a BackstageTopology into broker objects through the runtime provider's declarer, and reports them.
 *
 * <p>Every reconcile inspects the broker and declares only what is missing, then reschedules itself after the
 * poll interval: that is how a queue, group or topic deleted behind the operator's back comes back, how a fixed
 * Secret (read with the client, not watched) or a returning broker is picked up, and why a healthy steady state
 * costs one read-only inspection per poll. Broker and Secret failures are outcomes, not exceptions: they become
 * {@code Ready=False} with a reason from {@link ReadyReason} and the broker's message, scrubbed of secrets.
 *
 * <p>Deletion: only a topology with {@code deletionPolicy: delete} carries the operator's finalizer
 * ({@link #FINALIZER}): its broker objects are deleted before it goes ({@link TopologyCleanup}). A retained topology
 * (the default) needs no work on deletion, so it carries none: deleting it never waits for the operator, even
 * after {@code helm uninstall}; a finalizer an older version put on it is removed on its next reconcile. The
 * finalizer is managed here rather than by JOSDK (which would put its own on every topology): the controller sees
 * every event ({@code triggerReconcilerOnAllEvents}) and adds or removes it as the policy says.
 *
 * <p>Kept as one class: inspect, declare, report and the finalizer are the steps of one reconcile of one topology; the
 * broker connections ({@code BrokerConnections}), the cleanup ({@code TopologyCleanup}) and the plan ({@code
 * TopologyPlan}) are already apart.
 */
@ControllerConfiguration(
        name = TopologyReconciler.NAME,
        triggerReconcilerOnAllEvents = true,
        informer = @Informer(itemStore = TopologyCacheStore.class))
public class TopologyReconciler implements Reconciler<BackstageTopology> {
    public static final String NAME = "backstagetopology";
    /** The finalizer of a {@code deletionPolicy: delete} topology (the name JOSDK used before, so it is recognised). */
    public static final String FINALIZER = "backstagetopologies.backstage.dev/finalizer";

    private static final Logger LOG = LoggerFactory.getLogger(TopologyReconciler.class);
    private static final int LISTED_NAMES = 10;
    private static final String CREATED = "Created";

    private final TopologyBroker broker;
    private final BrokerConnections connections;
    private final EventRecorder events;
    private final TopologySettings settings;
    private final Clock clock;
    private final ScheduleFiring schedules;
    private final TopologyCleanup cleanup;

    public TopologyReconciler(
            TopologyBroker broker,
            BrokerConnections connections,
            EventRecorder events,
            TopologySettings settings,
            Clock clock) {
        this(broker, connections, events, settings, clock, null);
    }

    /**
     * @param schedules fires {@code spec.schedules} and writes {@code status.schedules}; {@code null} leaves schedules
     *                  unfired (tests of the broker side alone)
     */
    public TopologyReconciler(
            TopologyBroker broker,
            BrokerConnections connections,
            EventRecorder events,
            TopologySettings settings,
            Clock clock,
            ScheduleFiring schedules) {
        this.schedules = schedules;
        this.broker = Objects.requireNonNull(broker, "broker");
        this.connections = Objects.requireNonNull(connections, "connections");
        this.events = Objects.requireNonNull(events, "events");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.cleanup = new TopologyCleanup(broker, events, settings, clock);
    }

    @Override
    public List<EventSource<?, BackstageTopology>> prepareEventSources(EventSourceContext<BackstageTopology> context) {
        return schedules == null
                ? List.of(new ConnectionsLifecycle(connections))
                : List.of(new ConnectionsLifecycle(connections), schedules);
    }

    @Override
    public UpdateControl<BackstageTopology> reconcile(BackstageTopology topology, Context<BackstageTopology> context) {
        if (context.isPrimaryResourceDeleted()) {
            broker.forget(topology); // gone (a retained one goes at once): release its connection
            if (TopologyCleanup.policy(topology) == DeletionPolicy.RETAIN) {
                LOG.info(
                        "topology {}/{} deleted; deletionPolicy retain: broker objects left in place",
                        topology.getMetadata().getNamespace(),
                        topology.getMetadata().getName());
                events.normal(
                        topology,
                        "BrokerObjectsRetained",
                        "deletionPolicy retain: the broker objects and the jobs in them are left in place");
            }
            return UpdateControl.noUpdate();
        }
        if (topology.isMarkedForDeletion()) {
            return deleting(topology, context);
        }
        boolean deletes = TopologyCleanup.policy(topology) == DeletionPolicy.DELETE;
        if (deletes != topology.hasFinalizer(FINALIZER)) {
            // Only deletionPolicy delete has work to do on deletion; the change comes back as this topology's next
            // reconcile (a finalizer does not change the generation, so no event would).
            if (deletes) {
                PrimaryUpdateAndCacheUtils.addFinalizer(context, FINALIZER);
            } else {
                PrimaryUpdateAndCacheUtils.removeFinalizer(context, FINALIZER);
            }
            return UpdateControl.<BackstageTopology>noUpdate().rescheduleAfter(Duration.ofMillis(1));
        }
        if (topology.getStatus() == null) {
            topology.setStatus(new BackstageTopologyStatus());
        }
        BackstageTopologyStatus status = topology.getStatus();
        JsonNode before = Serialization.jsonMapper().valueToTree(status);
        boolean declaredBefore =
                status.getObjects() != null && !status.getObjects().isEmpty();

        Readiness readiness;
        boolean announcedCreation = false;
        try {
            TopologyBroker.Declaration declaration = broker.declare(topology);
            Set<String> created = status.getObjects() == null
                    ? Set.of()
                    : status.getObjects().stream()
                            .filter(o -> CREATED.equals(o.getState()))
                            .map(o -> o.getKind() + "/" + o.getName())
                            .collect(Collectors.toSet());
            status.setObjects(declaration.objects().stream()
                    .map(o -> objectStatus(o, declaration.scrubber(), created))
                    .toList());
            status.setCapabilities(declaration.capabilities());
            announcedCreation = announceDeclared(topology, declaration, declaredBefore);
            readiness = readiness(topology, declaration);
        } catch (TopologyProblem problem) {
            // Objects and capabilities stay as last seen: an unreachable broker says nothing new about them.
            readiness = new Readiness(Conditions.FALSE, problem.reason(), problem.getMessage());
        }
        status.setObservedGeneration(topology.getMetadata().getGeneration());
        setReady(topology, readiness, announcedCreation);

        if (schedules != null) {
            schedules.track(topology);
        }
        JsonNode after = Serialization.jsonMapper().valueToTree(status);
        if (before.equals(after)) {
            return UpdateControl.<BackstageTopology>noUpdate().rescheduleAfter(settings.pollInterval());
        }
        if (context.getControllerConfiguration().getConfigurationService().useSSAToPatchPrimaryResource()) {
            // The schedule fields have one writer, the schedule firing: applying the cached copy would claim them here.
            status.setSchedules(null);
            status.setScheduleSummary(null);
            status.setLastFiredTick(null);
        }
        return UpdateControl.patchStatus(topology).rescheduleAfter(settings.pollInterval());
    }

    @Override
    public ErrorStatusUpdateControl<BackstageTopology> updateErrorStatus(
            BackstageTopology topology, Context<BackstageTopology> context, Exception e) {
        if (BrokerConnections.ClosedException.in(e)) {
            // The operator is stopping mid-reconcile (JOSDK may hand the exception over wrapped): the topology did
            // nothing wrong, so its status stays as it is.
            return ErrorStatusUpdateControl.<BackstageTopology>noStatusUpdate().withNoRetry();
        }
        // Only the unexpected gets here (e.g. the API server refused to let us read the Secret); JOSDK retries.
        String message = SecretScrubber.none().scrub(e.getClass().getSimpleName() + ": " + e.getMessage());
        LOG.warn(
                "reconcile of topology {}/{} failed: {}",
                topology.getMetadata().getNamespace(),
                topology.getMetadata().getName(),
                message);
        if (topology.getStatus() == null) {
            topology.setStatus(new BackstageTopologyStatus());
        }
        setReady(topology, new Readiness(Conditions.FALSE, ReadyReason.DECLARATION_FAILED, message), false);
        return ErrorStatusUpdateControl.patchStatus(topology);
    }

    /** A topology being deleted: only one with the operator's finalizer needs anything from it. */
    private UpdateControl<BackstageTopology> deleting(BackstageTopology topology, Context<BackstageTopology> context) {
        if (!topology.hasFinalizer(FINALIZER)) {
            return UpdateControl.noUpdate(); // other finalizers hold it; nothing of ours to do
        }
        DeleteControl outcome = cleanup.run(topology, context);
        if (outcome.isRemoveFinalizer()) {
            PrimaryUpdateAndCacheUtils.removeFinalizer(context, FINALIZER);
            return UpdateControl.noUpdate();
        }
        UpdateControl<BackstageTopology> wait = UpdateControl.noUpdate();
        return outcome.getScheduleDelay().map(wait::rescheduleAfter).orElse(wait);
    }

    private Readiness readiness(BackstageTopology topology, TopologyBroker.Declaration declaration) {
        List<DeclaredObject> failed = declaration.objects().stream()
                .filter(o -> o.state() == DeclaredObject.State.FAILED || o.state() == DeclaredObject.State.MISSING)
                .toList();
        if (!failed.isEmpty()) {
            String reason = failed.stream()
                    .filter(o -> o.state() == DeclaredObject.State.FAILED)
                    .findFirst()
                    .map(o -> BrokerFailures.reasonForMessage(o.detail()))
                    .orElse(ReadyReason.DECLARATION_FAILED);
            return new Readiness(
                    Conditions.FALSE,
                    reason,
                    "could not declare " + failed.size() + " of "
                            + declaration.objects().size() + " objects on " + declaration.provider() + ": "
                            + describeFailures(failed, declaration.scrubber()));
        }
        Optional<String> missing = CapabilityReport.missingRequired(topology.getSpec(), declaration.capabilities());
        if (missing.isPresent()) {
            return new Readiness(Conditions.FALSE, ReadyReason.CAPABILITY_MISSING, missing.get());
        }
        return new Readiness(
                Conditions.TRUE,
                ReadyReason.DECLARED,
                declaration.objects().size() + " broker objects exist on " + declaration.provider());
    }

    /** @return true when it announced a first declaration ({@code BrokerObjectsCreated}) */
    private boolean announceDeclared(
            BackstageTopology topology, TopologyBroker.Declaration declaration, boolean declaredBefore) {
        List<DeclaredObject> created = declaration.redeclared();
        if (created.isEmpty()) {
            return false;
        }
        if (declaredBefore) {
            LOG.info(
                    "topology {}/{}: re-declared {} objects missing on the broker: {}",
                    topology.getMetadata().getNamespace(),
                    topology.getMetadata().getName(),
                    created.size(),
                    names(created));
            events.warning(
                    topology,
                    "BrokerObjectsRedeclared",
                    "missing on " + declaration.provider() + " and declared again: " + names(created));
            return false;
        }
        events.normal(topology, "BrokerObjectsCreated", "created on " + declaration.provider() + ": " + names(created));
        return true;
    }

    /**
     * Sets Ready; tells the user through an Event and the log when the reason or message changes. A new topology's
     * first Ready gets no Event of its own when {@code announcedCreation}: its BrokerObjectsCreated says it.
     */
    private void setReady(BackstageTopology topology, Readiness readiness, boolean announcedCreation) {
        List<Condition> conditions = topology.getStatus().getConditions();
        Optional<Condition> previous = Conditions.find(conditions, Conditions.READY)
                .map(c -> new Condition(c.getType(), c.getStatus(), c.getReason(), c.getMessage(), null, null));
        Conditions.set(
                conditions,
                Conditions.READY,
                readiness.status(),
                readiness.reason(),
                readiness.message(),
                topology.getMetadata().getGeneration(),
                clock.instant());
        boolean sameReason =
                previous.map(c -> readiness.reason().equals(c.getReason())).orElse(false);
        boolean sameMessage =
                previous.map(c -> readiness.message().equals(c.getMessage())).orElse(false);
        if (Conditions.TRUE.equals(readiness.status())) {
            if (!sameReason) {
                LOG.info(
                        "topology {}/{} is Ready: {}",
                        topology.getMetadata().getNamespace(),
                        topology.getMetadata().getName(),
                        readiness.message());
                if (!(announcedCreation && previous.isEmpty())) {
                    events.normal(topology, "TopologyReady", readiness.message());
                }
            }
        } else if (!sameReason || !sameMessage) {
            LOG.warn(
                    "topology {}/{} is not Ready ({}): {}",
                    topology.getMetadata().getNamespace(),
                    topology.getMetadata().getName(),
                    readiness.reason(),
                    readiness.message());
            events.warning(topology, readiness.reason(), readiness.message());
        }
    }

    /**
     * An object this operator created stays {@code Created} while it exists: the next poll finds it existing, and
     * saying {@code Existed} then would rewrite every new topology's status once for no news (1,000 status writes
     * 30 s after 1,000 topologies are created). {@code Existed} is kept for what was there before the first pass.
     */
    private static BrokerObjectStatus objectStatus(
            DeclaredObject object, SecretScrubber scrubber, Set<String> created) {
        String state =
                object.state() == DeclaredObject.State.EXISTED && created.contains(object.kind() + "/" + object.name())
                        ? CREATED
                        : object.state().name().charAt(0)
                                + object.state().name().substring(1).toLowerCase(Locale.ROOT);
        return new BrokerObjectStatus(object.kind(), object.name(), state, scrubber.scrub(object.detail()));
    }

    private static String describeFailures(List<DeclaredObject> failed, SecretScrubber scrubber) {
        return scrubber.scrub(failed.stream()
                .map(o -> o.kind() + " " + o.name() + " " + o.state().name().toLowerCase(Locale.ROOT)
                        + (o.detail() == null ? "" : " (" + o.detail() + ")"))
                .collect(Collectors.joining("; ")));
    }

    private static String names(List<DeclaredObject> objects) {
        String listed = objects.stream()
                .limit(LISTED_NAMES)
                .map(o -> o.kind() + " " + o.name())
                .collect(Collectors.joining(", "));
        return objects.size() > LISTED_NAMES ? listed + " and " + (objects.size() - LISTED_NAMES) + " more" : listed;
    }

    private record Readiness(String status, String reason, String message) {}
}
