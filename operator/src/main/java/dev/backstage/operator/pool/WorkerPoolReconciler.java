package dev.backstage.operator.pool;

import dev.backstage.operator.autoscaler.BacklogMonitors;
import dev.backstage.operator.events.EventRecorder;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.Condition;
import dev.backstage.operator.model.Conditions;
import dev.backstage.operator.workload.DeploymentReplicas;
import dev.backstage.operator.workload.PoolResources;
import dev.backstage.runtime.logging.LogSettings;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a BackstageWorkerPool into a ConfigMap (runtime.yaml) and a Deployment, both owned by the pool.
 *
 * <p>The workflow runs explicitly, and only when the pool's topology exists: without it there is no provider
 * to render, and leaving the current workers alone is safer than tearing them down because a topology was
 * renamed or is being recreated. A topology that exists but is not Ready still gets workers (its readiness can
 * flap on broker errors, and the workers' own probes tell whether they can work); the pool then reports
 * Ready=False with reason TopologyNotReady.
 *
 * <p>Status is written only when it changed, and only the fields this reconciler owns
 * ({@link BackstageWorkerPoolStatus} lists them): with server-side apply the status sent holds nothing else, so the
 * API server records this controller as their one manager and leaves the autoscaler's fields and conditions alone
 * (conditions are a list-map keyed by type).
 *
 * <p>Backlog and autoscaling run beside it, not in it: every reconcile hands the pool and its topology to the
 * {@link BacklogMonitors}, which poll the broker on their own threads and write their status fields; a new
 * {@code status.desiredReplicas} comes back here as a reconcile that scales the Deployment.
 *
 * <p>Kept as one class: the workflow, the topology gate and the status this reconciler owns are one reconcile; what it
 * renders lives in its dependents ({@code PoolConfigMapDependent}, {@code PoolDeploymentDependent}) and their helpers.
 */
@Workflow(
        explicitInvocation = true,
        dependents = {
            @Dependent(name = WorkerPoolReconciler.CONFIG_DEPENDENT, type = PoolConfigMapDependent.class),
            @Dependent(
                    name = WorkerPoolReconciler.DEPLOYMENT_DEPENDENT,
                    type = PoolDeploymentDependent.class,
                    dependsOn = WorkerPoolReconciler.CONFIG_DEPENDENT)
        })
@ControllerConfiguration(
        name = WorkerPoolReconciler.NAME,
        generationAwareEventProcessing = false,
        informer = @Informer(onUpdateFilter = PoolChangeFilter.class, itemStore = PoolCacheStore.class))
public class WorkerPoolReconciler implements Reconciler<BackstageWorkerPool> {
    public static final String NAME = "backstageworkerpool";
    static final String CONFIG_DEPENDENT = "runtime-config";
    static final String DEPLOYMENT_DEPENDENT = "deployment";

    private static final Logger LOG = LoggerFactory.getLogger(WorkerPoolReconciler.class);

    private final EventRecorder events;
    private final Clock clock;
    private final BacklogMonitors backlog;
    private final LogSettings workerLogging;
    private final StatusHeartbeat heartbeat;
    private final PoolConditions conditions;
    /** The topologies the pools name, as this controller's informer has them; set when its event sources are made. */
    private volatile InformerEventSource<BackstageTopology, BackstageWorkerPool> topologies;

    /** @param workerLogging the workers' log level and format, unless a pool's env sets them */
    public WorkerPoolReconciler(EventRecorder events, Clock clock, BacklogMonitors backlog, LogSettings workerLogging) {
        this(events, clock, backlog, workerLogging, new StatusHeartbeat(StatusHeartbeat.DEFAULT_INTERVAL, clock));
    }

    /** @param heartbeat how often an unchanged status is written again, so a stale one shows (status.heartbeatTime) */
    public WorkerPoolReconciler(
            EventRecorder events,
            Clock clock,
            BacklogMonitors backlog,
            LogSettings workerLogging,
            StatusHeartbeat heartbeat) {
        this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
        this.events = Objects.requireNonNull(events, "events");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.backlog = Objects.requireNonNull(backlog, "backlog");
        this.workerLogging = Objects.requireNonNull(workerLogging, "workerLogging");
        this.conditions = new PoolConditions(events, clock);
    }

    @Override
    public List<EventSource<?, BackstageWorkerPool>> prepareEventSources(
            EventSourceContext<BackstageWorkerPool> context) {
        topologies = TopologyEventSource.create(context);
        return List.of(topologies, backlog);
    }

    /**
     * A topology from this controller's informer cache, without an API request (admission reads pools' topologies
     * here); empty when the cache does not hold it or its informer is not running. The object is the cache's own:
     * callers must not change it.
     */
    public Optional<BackstageTopology> cachedTopology(String namespace, String name) {
        InformerEventSource<BackstageTopology, BackstageWorkerPool> source = topologies;
        return source == null || !source.isRunning() ? Optional.empty() : source.get(new ResourceID(name, namespace));
    }

    @Override
    public UpdateControl<BackstageWorkerPool> reconcile(
            BackstageWorkerPool pool, Context<BackstageWorkerPool> context) {
        Optional<BackstageTopology> topology = context.getSecondaryResource(BackstageTopology.class);
        backlog.track(pool, topology);
        PoolReadiness readiness;
        int desired = DeploymentReplicas.of(pool);
        int wanted = desired;
        if (topology.isEmpty()) {
            readiness = PoolReadiness.topologyNotFound(
                    pool.getMetadata().getNamespace(), TopologyEventSource.topologyName(pool));
        } else {
            PoolPlan plan = PoolPlan.of(pool, topology.get(), events, workerLogging);
            plan.attachTo(context);
            context.managedWorkflowAndDependentResourceContext()
                    .reconcileManagedWorkflow()
                    .throwAggregateExceptionIfErrorsPresent();
            wanted = plan.replicas();
            readiness = PoolReadiness.of(topology.get(), context.getSecondaryResource(Deployment.class), wanted);
            if (firstStatusWaits(pool, topology.get(), readiness, clock.instant())) {
                // A new pool waiting only on what finishes by itself: its topology's first verdict, or the Deployment
                // controller's first look at the Deployment. Either writes an object this controller watches, which
                // starts the pool's next reconcile. Saying TopologyNotReady or RolloutInProgress first would be a
                // status write (and for the topology a Warning) on every pool applied with its topology.
                return UpdateControl.<BackstageWorkerPool>noUpdate().rescheduleAfter(ROLLOUT_RECHECK);
            }
        }
        Optional<Deployment> deployment = context.getSecondaryResource(Deployment.class);
        BackstageWorkerPoolStatus owned = new BackstageWorkerPoolStatus();
        owned.setReplicas(deployment.map(WorkerPoolReconciler::podCount).orElse(0));
        owned.setReadyReplicas(deployment.map(WorkerPoolReconciler::readyCount).orElse(0));
        owned.setUpdatedReplicas(
                deployment.map(WorkerPoolReconciler::updatedCount).orElse(0));
        owned.setSelector(selector(pool));
        if (!autoscaled(pool)) {
            owned.setDesiredReplicas(desired); // with autoscaling on, the autoscaler owns it
        }
        owned.setObservedGeneration(pool.getMetadata().getGeneration());
        PoolScaling scaling = PoolScaling.of(deployment, wanted);
        owned.setConditions(conditions.owned(pool, readiness, Optional.of(scaling)));
        boolean write = changed(pool, owned) || heartbeat.due(pool.getStatus());
        owned.setHeartbeatTime(write ? heartbeat.now() : null);
        UpdateControl<BackstageWorkerPool> control =
                write ? UpdateControl.patchStatus(withOwnedStatus(pool, owned, context)) : UpdateControl.noUpdate();
        Duration next = write ? heartbeat.interval() : heartbeat.untilDue(pool.getStatus());
        boolean moving = readiness.awaitsRollout() || scaling.inProgress();
        return control.rescheduleAfter(moving && ROLLOUT_RECHECK.compareTo(next) < 0 ? ROLLOUT_RECHECK : next);
    }

    /**
     * While a rollout is in progress the Deployment's status events drive readiness; this re-check (from the
     * informer cache, so no API request unless the status changed) makes Ready converge even if the reconcile
     * that wrote the Deployment read its own, older copy and the event of the controller's status write was folded
     * into that reconcile (seen once in a full-suite run).
     */
    static final Duration ROLLOUT_RECHECK = Duration.ofSeconds(10);

    /** How long a new pool may go without a status while it waits on what finishes by itself. */
    static final Duration FIRST_STATUS_WAIT = Duration.ofSeconds(30);

    /**
     * True for a pool without status, younger than {@link #FIRST_STATUS_WAIT}, whose topology has no Ready condition
     * yet (nobody has reconciled it) or whose Deployment the Deployment controller has not rolled out yet: its first
     * status would only say "wait". It is written when the pool is Ready, has another reason, or is 30 s old.
     */
    static boolean firstStatusWaits(
            BackstageWorkerPool pool, BackstageTopology topology, PoolReadiness readiness, Instant now) {
        if (pool.getStatus() != null) {
            return false;
        }
        boolean noVerdict = topology.getStatus() == null
                || Conditions.find(topology.getStatus().getConditions(), Conditions.READY)
                        .isEmpty();
        if (!noVerdict && !PoolReadiness.ROLLOUT_IN_PROGRESS.equals(readiness.reason())) {
            return false;
        }
        String created = pool.getMetadata().getCreationTimestamp();
        if (created == null) {
            return false;
        }
        try {
            return Instant.parse(created).plus(FIRST_STATUS_WAIT).isAfter(now);
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    @Override
    public ErrorStatusUpdateControl<BackstageWorkerPool> updateErrorStatus(
            BackstageWorkerPool pool, Context<BackstageWorkerPool> context, Exception e) {
        if (Conflicts.isConflict(e)) {
            // Someone (the deployment controller, a user) wrote the object between our read and our write. That is
            // routine under optimistic locking, not a failure to report: the retry reads the new version.
            LOG.info(
                    "pool {}/{}: write conflict ({}); retrying",
                    pool.getMetadata().getNamespace(),
                    pool.getMetadata().getName(),
                    Conflicts.describe(e));
            return ErrorStatusUpdateControl.noStatusUpdate();
        }
        if (Conflicts.isNamespaceTerminating(e)) {
            LOG.info(
                    "pool {}/{}: its namespace is being deleted; nothing to reconcile",
                    pool.getMetadata().getNamespace(),
                    pool.getMetadata().getName());
            return ErrorStatusUpdateControl.<BackstageWorkerPool>noStatusUpdate()
                    .withNoRetry();
        }
        PoolReadiness failed = PoolReadiness.failed(e);
        LOG.warn(
                "reconcile of pool {}/{} failed: {}",
                pool.getMetadata().getNamespace(),
                pool.getMetadata().getName(),
                failed.message());
        LOG.debug(
                "reconcile failure of pool {}/{}",
                pool.getMetadata().getNamespace(),
                pool.getMetadata().getName(),
                e);
        events.warning(pool, failed.reason(), failed.message());
        BackstageWorkerPoolStatus current =
                pool.getStatus() == null ? new BackstageWorkerPoolStatus() : pool.getStatus();
        BackstageWorkerPoolStatus owned = new BackstageWorkerPoolStatus();
        owned.setReplicas(current.getReplicas());
        owned.setReadyReplicas(current.getReadyReplicas());
        owned.setUpdatedReplicas(current.getUpdatedReplicas());
        owned.setSelector(selector(pool));
        owned.setDesiredReplicas(autoscaled(pool) ? null : current.getDesiredReplicas());
        owned.setObservedGeneration(current.getObservedGeneration());
        owned.setConditions(conditions.owned(pool, failed, Optional.empty()));
        owned.setHeartbeatTime(heartbeat.now());
        return ErrorStatusUpdateControl.patchStatus(withOwnedStatus(pool, owned, context));
    }

    private static boolean autoscaled(BackstageWorkerPool pool) {
        return pool.getSpec().getAutoscaling() != null
                && pool.getSpec().getAutoscaling().isOn();
    }

    /** True when a field this reconciler owns differs from what the pool's status says. */
    private static boolean changed(BackstageWorkerPool pool, BackstageWorkerPoolStatus owned) {
        BackstageWorkerPoolStatus current = pool.getStatus();
        if (current == null) {
            return true;
        }
        return !Objects.equals(current.getReplicas(), owned.getReplicas())
                || !Objects.equals(current.getReadyReplicas(), owned.getReadyReplicas())
                || !Objects.equals(current.getUpdatedReplicas(), owned.getUpdatedReplicas())
                || !Objects.equals(current.getSelector(), owned.getSelector())
                || (owned.getDesiredReplicas() != null
                        && !Objects.equals(current.getDesiredReplicas(), owned.getDesiredReplicas()))
                || !Objects.equals(current.getObservedGeneration(), owned.getObservedGeneration())
                || PoolConditions.changed(pool, owned.getConditions());
    }

    /**
     * What JOSDK writes. With server-side apply (production): a pool holding only the owned status, applied under
     * this controller's field manager. Without it (the mock API's tests): the whole pool with the owned fields set,
     * since JOSDK then sends the difference from the cached pool and an absent field would be a removal.
     */
    private static BackstageWorkerPool withOwnedStatus(
            BackstageWorkerPool pool, BackstageWorkerPoolStatus owned, Context<BackstageWorkerPool> context) {
        if (context.getControllerConfiguration().getConfigurationService().useSSAToPatchPrimaryResource()) {
            BackstageWorkerPool apply = new BackstageWorkerPool();
            apply.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                    .withName(pool.getMetadata().getName())
                    .withNamespace(pool.getMetadata().getNamespace())
                    .build());
            apply.setStatus(owned);
            return apply;
        }
        if (pool.getStatus() == null) {
            pool.setStatus(new BackstageWorkerPoolStatus());
        }
        BackstageWorkerPoolStatus status = pool.getStatus();
        status.setReplicas(owned.getReplicas());
        status.setReadyReplicas(owned.getReadyReplicas());
        status.setUpdatedReplicas(owned.getUpdatedReplicas());
        status.setSelector(owned.getSelector());
        if (owned.getDesiredReplicas() != null) {
            status.setDesiredReplicas(owned.getDesiredReplicas());
        }
        status.setObservedGeneration(owned.getObservedGeneration());
        status.setHeartbeatTime(owned.getHeartbeatTime());
        for (Condition c : owned.getConditions()) {
            Conditions.set(
                    status.getConditions(),
                    c.getType(),
                    c.getStatus(),
                    c.getReason(),
                    c.getMessage(),
                    c.getObservedGeneration(),
                    Instant.parse(c.getLastTransitionTime()));
        }
        return pool;
    }

    /** The worker pods' selector as the /scale subresource gives it (k=v,k=v). */
    private static String selector(BackstageWorkerPool pool) {
        return new java.util.TreeMap<>(PoolResources.selector(pool))
                .entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(java.util.stream.Collectors.joining(","));
    }

    private static int podCount(Deployment deployment) {
        return deployment.getStatus() == null || deployment.getStatus().getReplicas() == null
                ? 0
                : deployment.getStatus().getReplicas();
    }

    private static int updatedCount(Deployment deployment) {
        return deployment.getStatus() == null || deployment.getStatus().getUpdatedReplicas() == null
                ? 0
                : deployment.getStatus().getUpdatedReplicas();
    }

    private static int readyCount(Deployment deployment) {
        return deployment.getStatus() == null || deployment.getStatus().getReadyReplicas() == null
                ? 0
                : deployment.getStatus().getReadyReplicas();
    }
}
