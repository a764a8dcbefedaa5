package dev.backstage.runtime.rabbitmq;

import com.rabbitmq.client.Channel;
import dev.backstage.runtime.spi.DeclaredObject;
import dev.backstage.runtime.spi.DelayedBacklog;
import dev.backstage.runtime.spi.OutgoingJob;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Broker-native delays without the plugin: a ladder of delay-level queues with a per-queue message TTL
 * that dead-letter onward, ending in the work queue ({@link DelayLadder} has the arithmetic).
 *
 * <pre>
 *  publish ──► exchange L(k) ──bit k=1──► queue L(k) (TTL 2^k·r) ──expired──► exchange L(k−1) ──► …
 *                            └─bit k=0──────────────────────────────────────► exchange L(k−1)
 *  exchange L(0) ──► … ──► {p}.delay-deliver (headers: backstage-queue = {p}.{q}) ──► work queue {p}.{q}
 * </pre>
 *
 * A message waits only in the levels whose bit is set in its delay, longest first. Every message in one
 * level waits the same time, so no level queue ever holds a later-due message ahead of an earlier-due one:
 * a 1 s delay never waits behind a 1 h delay. The result is due time rounded up to 100 ms (never early).
 *
 * <p>Known limit: classic queues dead-letter at most once, without publisher confirms inside the broker,
 * so a broker crash at the instant of a hop can lose that message; the plugin or a supplied delays
 * capability (Redis) avoid this. Delays above {@link DelayLadder#maxDelay()} (~38 days) are refused.
 */
final class FallbackDelays implements RabbitMqDelays {
    static final String BACKEND = "rabbitmq-ttl-ladder";
    /** The header the final headers exchange routes on (not {@code x-} prefixed: those are not matched). */
    static final String DESTINATION_HEADER = "backstage-queue";

    private final RabbitMqNames names;
    private final DelayLadder ladder;
    private final BrokerAdmin admin;
    private final RabbitMqJobs jobs;
    private final Set<String> routed = ConcurrentHashMap.newKeySet();
    /** The ladder is declared on first use, so opening a provider (a CLI inspect, a probe) creates nothing. */
    private volatile boolean ladderDeclared;

    FallbackDelays(RabbitMqNames names, DelayLadder ladder, BrokerAdmin admin, RabbitMqJobs jobs) {
        this.names = names;
        this.ladder = ladder;
        this.admin = admin;
        this.jobs = jobs;
    }

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public RabbitMqJobs jobs() {
        return jobs;
    }

    DelayLadder ladder() {
        return ladder;
    }

    /** Declares the ladder (idempotent: same names, same arguments; existing level queues are kept as they are). */
    void declareLadder() {
        admin.call("declare the delay ladder", ch -> {
            ch.exchangeDeclare(names.delayDeliverExchange(), "headers", true, false, null);
            for (int level = 0; level < ladder.levels(); level++) {
                ch.exchangeDeclare(names.delayLevel(level), "topic", true, false, null);
            }
            for (int level = 0; level < ladder.levels(); level++) {
                declareLevel(ch, level);
            }
            return null;
        });
        ladderDeclared = true;
    }

    private void declareLevel(Channel ch, int level) throws IOException {
        String next = level == 0 ? names.delayDeliverExchange() : names.delayLevel(level - 1);
        Map<String, Object> args = new HashMap<>();
        args.put("x-message-ttl", ladder.ttlMs(level));
        args.put("x-dead-letter-exchange", next); // no dead-letter routing key: the bits in the key steer on
        // A level that exists is used as it is: one declared by an earlier version, or as another queue type,
        // would refuse these arguments (406) and close the channel.
        if (!admin.queueExists(names.delayLevel(level))) {
            ch.queueDeclare(
                    names.delayLevel(level),
                    true,
                    false,
                    false,
                    jobs.declarations().arguments().delayLevel(args));
        }
        ch.queueBind(names.delayLevel(level), names.delayLevel(level), ladder.bindingPattern(level, true));
        ch.exchangeBind(next, names.delayLevel(level), ladder.bindingPattern(level, false));
    }

    /** Names of ladder objects that do not exist (empty when the ladder is complete). */
    List<String> ladderMissing() {
        List<String> missing = new ArrayList<>();
        if (!admin.exchangeExists(names.delayDeliverExchange())) {
            missing.add("exchange " + names.delayDeliverExchange());
        }
        for (int level = 0; level < ladder.levels(); level++) {
            if (!admin.exchangeExists(names.delayLevel(level))) {
                missing.add("exchange " + names.delayLevel(level));
            }
            if (!admin.queueExists(names.delayLevel(level))) {
                missing.add("queue " + names.delayLevel(level));
            }
        }
        return missing;
    }

    /** Binds {@code {p}.{q}} to the deliver exchange, once per queue and process. */
    private void ensureRoute(String queue) {
        if (!ladderDeclared) {
            declareLadder();
        }
        if (routed.contains(queue)) {
            return;
        }
        jobs.declarations().ensureJobQueue(queue);
        bindDeliver(queue);
        routed.add(queue);
    }

    private void bindDeliver(String queue) {
        String workQueue = names.workQueue(queue);
        admin.call(
                "bind " + workQueue + " to " + names.delayDeliverExchange(),
                ch -> ch.queueBind(
                        workQueue,
                        names.delayDeliverExchange(),
                        "",
                        Map.of("x-match", "all", DESTINATION_HEADER, workQueue)));
    }

    /**
     * The messages waiting in the ladder's level queues. The ladder is shared by every queue of the prefix
     * (the destination travels in a header), so this is one total; a message hopping between two levels is
     * briefly in neither, so the total can be low by the few messages moving at that moment.
     */
    @Override
    public Optional<List<DelayedBacklog>> delayed(List<String> queues) {
        long total = 0;
        for (int level = 0; level < ladder.levels(); level++) {
            total += admin.ready(names.delayLevel(level)).orElse(0);
        }
        return Optional.of(List.of(new DelayedBacklog(
                null,
                total,
                null,
                "the delay ladder (" + names.prefix()
                        + ".delay-level.*) is shared by all queues: one total, no split per queue and no due time")));
    }

    @Override
    public CompletableFuture<Void> scheduleAsync(OutgoingJob job, Instant runAt) {
        try {
            Duration delay = Duration.between(Instant.now(), runAt);
            DelayLadder.Route route = ladder.route(delay);
            if (route == null) {
                return jobs.publishAsync(job); // already due
            }
            ensureRoute(job.queue());
            byte[] body = jobs.codec().encode(job, job.jobId());
            return jobs.publisher()
                    .publish(
                            names.delayLevel(route.entryLevel()),
                            route.routingKey(),
                            true,
                            RabbitMqJobs.properties(
                                    job.jobId(), Map.of(DESTINATION_HEADER, names.workQueue(job.queue()))),
                            body);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public List<DeclaredObject> declare(List<String> queues) {
        boolean created = !ladderMissing().isEmpty();
        declareLadder();
        List<DeclaredObject> result = new ArrayList<>();
        result.add(ladderObject(created ? DeclaredObject.State.CREATED : DeclaredObject.State.EXISTED, null));
        for (String queue : queues) {
            bindDeliver(queue);
            routed.add(queue);
        }
        return result;
    }

    @Override
    public List<DeclaredObject> inspect(List<String> queues) {
        List<String> missing = ladderMissing();
        return List.of(ladderObject(
                missing.isEmpty() ? DeclaredObject.State.EXISTED : DeclaredObject.State.MISSING,
                missing.isEmpty() ? null : "missing: " + String.join(", ", missing)));
    }

    @Override
    public List<DeclaredObject> delete() {
        admin.call("delete the delay ladder", ch -> {
            for (int level = 0; level < ladder.levels(); level++) {
                ch.queueDelete(names.delayLevel(level));
                ch.exchangeDelete(names.delayLevel(level));
            }
            ch.exchangeDelete(names.delayDeliverExchange());
            return null;
        });
        routed.clear();
        ladderDeclared = false;
        return List.of(ladderObject(DeclaredObject.State.DELETED, null));
    }

    private DeclaredObject ladderObject(DeclaredObject.State state, String detail) {
        String summary = ladder.levels() + " levels of " + ladder.resolution().toMillis() + " ms × 2^n, up to "
                + ladder.maxDelay();
        return new DeclaredObject(
                "delay-ladder",
                names.prefix() + ".delay-level.*",
                state,
                detail == null ? summary : summary + "; " + detail);
    }
}
