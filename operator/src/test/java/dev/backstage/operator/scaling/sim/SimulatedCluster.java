package dev.backstage.operator.scaling.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The world both autoscalers act on: a broker queue (or Kafka partitions), a Deployment whose replicas the
 * autoscaler sets, and pods that start, work and shut down.
 *
 * <p>What is modelled, and how (the same for both autoscalers):
 * <ul>
 *   <li>Arrivals follow the trace exactly (fluid, released every tick). Kafka jobs are spread round-robin
 *       over the partitions (uniform keys).</li>
 *   <li>A new pod is ready after the start-up delay. Ready pods fill their slots FIFO. On Kafka, partitions
 *       are assigned round-robin to the ready pods whenever that set changes, and a pod only takes jobs of
 *       its own partitions (so 11 pods on 12 partitions leave one pod with two partitions' load).</li>
 *   <li>Scale-in picks victims like the ReplicaSet controller: not-ready pods first, then the most recently
 *       ready; it does not know which pods are busy. A victim gets SIGTERM: it stops taking jobs (the
 *       runtime's graceful shutdown), finishes what it runs, and exits; whatever still runs when the
 *       termination grace period ends is killed (counted) and goes back to the head of its queue, to be
 *       redelivered (its wait keeps counting from the original arrival).</li>
 *   <li>Replica-seconds count every pod from creation to exit, terminating ones included.</li>
 *   <li>Job times are fixed, or exponential ({@link Workload#exponential()}): drawn per job at arrival from a
 *       generator seeded by the run's seed, so every autoscaler sees the same jobs in the same order.</li>
 * </ul>
 * Not modelled: Kafka rebalance pauses, image pulls differing per node, broker latency.
 */
final class SimulatedCluster {
    private final ArrivalTrace trace;
    private final Workload workload;
    private final long serviceMs;
    private final long startupMs;
    private final long graceMs;
    private final ArrayDeque<SimJob>[] queues;
    private final List<SimPod> pods = new ArrayList<>();
    private final PriorityQueue<SimJob> running =
            new PriorityQueue<>(Comparator.comparingLong((SimJob job) -> job.finishesAtMs));
    private final List<Long> waitsMs = new ArrayList<>();
    private final java.util.Random jobTimes;

    private int desiredReplicas;
    private int nextPodId;
    private double arrivalsDue;
    private long arrived;
    private long completed;
    private long inFlight;
    private long queued;
    private long killed;
    private int scaleEvents;
    private double replicaSeconds;
    private String assignmentKey = "";

    @SuppressWarnings("unchecked")
    SimulatedCluster(ArrivalTrace trace, Workload workload, double graceSeconds) {
        this(trace, workload, graceSeconds, 0);
    }

    /** @param seed seeds the job times of an exponential workload (unused otherwise) */
    SimulatedCluster(ArrivalTrace trace, Workload workload, double graceSeconds, long seed) {
        this.jobTimes = new java.util.Random(seed);
        this.trace = trace;
        this.workload = workload;
        this.serviceMs = Math.round(workload.serviceSeconds() * 1000);
        this.startupMs = Math.round(workload.startupSeconds() * 1000);
        this.graceMs = Math.round(graceSeconds * 1000);
        int queueCount = workload.partitioned() ? workload.partitions() : 1;
        this.queues = new ArrayDeque[queueCount];
        for (int i = 0; i < queueCount; i++) {
            queues[i] = new ArrayDeque<>();
        }
    }

    /** Moves the world to {@code nowMs}: completions, shutdowns, readiness, arrivals, then dispatch. */
    void advance(long nowMs, long tickMs) {
        completeUpTo(nowMs);
        shutDownTerminating(nowMs);
        reassignPartitions(nowMs);
        arrive(nowMs, tickMs);
        dispatch(nowMs);
        replicaSeconds += pods.size() * tickMs / 1000.0;
    }

    /** What the Deployment asks for; scaling happens at once (pods are created or get SIGTERM now). */
    void setReplicas(int replicas, long nowMs) {
        if (replicas == desiredReplicas) {
            return;
        }
        scaleEvents++;
        desiredReplicas = replicas;
        List<SimPod> live = pods.stream().filter(pod -> !pod.terminating()).toList();
        for (int i = live.size(); i < replicas; i++) {
            pods.add(new SimPod(nextPodId++, nowMs, nowMs + startupMs));
        }
        int excess = live.size() - replicas;
        if (excess > 0) {
            List<SimPod> victims = new ArrayList<>(live);
            // ReplicaSet ranking: not ready before ready, then the most recently ready first.
            victims.sort(Comparator.comparing((SimPod pod) -> pod.ready(nowMs))
                    .thenComparing(Comparator.comparingLong((SimPod pod) -> pod.readyAtMs)
                            .reversed()));
            for (SimPod victim : victims.subList(0, excess)) {
                victim.terminatingSinceMs = nowMs;
            }
            shutDownTerminating(nowMs);
            reassignPartitions(nowMs);
        }
    }

    private void completeUpTo(long nowMs) {
        while (!running.isEmpty() && running.peek().finishesAtMs <= nowMs) {
            SimJob job = running.poll();
            job.runningOn.running.remove(job);
            waitsMs.add(job.startedAtMs - job.arrivedAtMs);
            completed++;
            inFlight--;
        }
    }

    private void shutDownTerminating(long nowMs) {
        for (Iterator<SimPod> it = pods.iterator(); it.hasNext(); ) {
            SimPod pod = it.next();
            if (!pod.terminating()) {
                continue;
            }
            if (pod.running.isEmpty()) {
                it.remove();
            } else if (nowMs >= pod.terminatingSinceMs + graceMs) {
                for (SimJob job : pod.running) {
                    running.remove(job);
                    job.runningOn = null;
                    job.startedAtMs = -1;
                    queues[job.partition].addFirst(job);
                    queued++;
                    inFlight--;
                    killed++;
                }
                pod.running.clear();
                it.remove();
            }
        }
    }

    private void reassignPartitions(long nowMs) {
        if (!workload.partitioned()) {
            return;
        }
        List<SimPod> members = pods.stream().filter(pod -> pod.ready(nowMs)).toList();
        StringBuilder key = new StringBuilder();
        members.forEach(pod -> key.append(pod.id).append(','));
        if (key.toString().equals(assignmentKey)) {
            return;
        }
        assignmentKey = key.toString();
        pods.forEach(pod -> pod.partitions.clear());
        for (int partition = 0; partition < workload.partitions() && !members.isEmpty(); partition++) {
            members.get(partition % members.size()).partitions.add(partition);
        }
    }

    private void arrive(long nowMs, long tickMs) {
        arrivalsDue += trace.rateAt(nowMs / 1000.0) * tickMs / 1000.0;
        while (arrivalsDue >= 1) {
            arrivalsDue -= 1;
            int partition = (int) (arrived % queues.length);
            long jobMs = workload.exponential()
                    ? Math.max(1, Math.round(-Math.log(1 - jobTimes.nextDouble()) * serviceMs))
                    : serviceMs;
            queues[partition].addLast(new SimJob(nowMs, partition, jobMs));
            arrived++;
            queued++;
        }
    }

    private void dispatch(long nowMs) {
        if (queued == 0) {
            return;
        }
        for (SimPod pod : pods) {
            if (!pod.ready(nowMs)) {
                continue;
            }
            while (pod.running.size() < workload.slotsPerReplica()) {
                ArrayDeque<SimJob> queue = nextQueueFor(pod);
                if (queue == null) {
                    break;
                }
                SimJob job = queue.pollFirst();
                queued--;
                inFlight++;
                job.startedAtMs = nowMs;
                job.finishesAtMs = nowMs + job.serviceMs;
                job.runningOn = pod;
                pod.running.add(job);
                running.add(job);
            }
            if (queued == 0) {
                return;
            }
        }
    }

    /** The shared queue, or on Kafka the pod's partition whose oldest job waited longest. */
    private ArrayDeque<SimJob> nextQueueFor(SimPod pod) {
        if (!workload.partitioned()) {
            return queues[0].isEmpty() ? null : queues[0];
        }
        ArrayDeque<SimJob> best = null;
        for (int partition : pod.partitions) {
            ArrayDeque<SimJob> queue = queues[partition];
            if (!queue.isEmpty() && (best == null || queue.peekFirst().arrivedAtMs < best.peekFirst().arrivedAtMs)) {
                best = queue;
            }
        }
        return best;
    }

    /** Jobs waiting that were never handed out (RabbitMQ "ready", Redis lag). */
    long queued() {
        return queued;
    }

    /** Jobs handed to a pod and not finished, terminating pods included (unacked / pending / uncommitted). */
    long inFlight() {
        return inFlight;
    }

    long arrivedTotal() {
        return arrived;
    }

    long completedTotal() {
        return completed;
    }

    int desiredReplicas() {
        return desiredReplicas;
    }

    /** Pods that can take work now: the figure "time to reach the needed replicas" is measured on. */
    int readyReplicas(long nowMs) {
        int ready = 0;
        for (SimPod pod : pods) {
            if (pod.ready(nowMs)) {
                ready++;
            }
        }
        return ready;
    }

    Workload workload() {
        return workload;
    }

    long killed() {
        return killed;
    }

    int scaleEvents() {
        return scaleEvents;
    }

    double replicaSeconds() {
        return replicaSeconds;
    }

    /** Waits (arrival to the start that completed) of finished jobs, plus jobs still waiting at the end. */
    List<Long> waitsMs(long nowMs) {
        List<Long> all = new ArrayList<>(waitsMs);
        for (ArrayDeque<SimJob> queue : queues) {
            queue.forEach(job -> all.add(nowMs - job.arrivedAtMs));
        }
        running.forEach(job -> all.add(job.startedAtMs - job.arrivedAtMs));
        return all;
    }
}
