package dev.backstage.runtime.cli;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Producer;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.spi.BrokerNames;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code backstage enqueue <task> <payload-json>}. */
@Command(name = "enqueue", description = "Enqueue a job. One enqueued job prints its id; --count N prints a summary.")
class EnqueueCommand implements Callable<Integer> {
    @Mixin
    BrokerOptions broker;

    @Parameters(index = "0", paramLabel = "TASK", description = "task name")
    String task;

    @Parameters(
            index = "1",
            paramLabel = "PAYLOAD",
            converter = JsonPayloadConverter.class,
            description = "the job's payload: exactly one JSON value, e.g. '{\"orderId\":\"o1\"}' (use '{}' for none)")
    String payload;

    @Option(
            names = "--queue",
            defaultValue = EnqueueOptions.DEFAULT_QUEUE,
            description = "queue (default: ${DEFAULT-VALUE})")
    String queue;

    @Option(
            names = "--delay",
            converter = DurationConverter.class,
            description = "run after this delay, e.g. 500ms, 30s, 5m, 1h30m (needs the delays capability)")
    Duration delay;

    @Option(names = "--dedupe", description = "dedupe key (needs the dedupe capability)")
    String dedupe;

    @Option(
            names = "--dedupe-ttl",
            defaultValue = "1h",
            converter = DurationConverter.class,
            description = "how long the dedupe key is held (default: ${DEFAULT-VALUE})")
    Duration dedupeTtl;

    @Option(
            names = "--attempts",
            converter = PositiveIntConverter.class,
            description = "deliveries before the job is dead-lettered (default: the task's own setting)")
    Integer attempts;

    @Option(
            names = "--count",
            defaultValue = "1",
            converter = PositiveIntConverter.class,
            description = "enqueue this many copies (default: ${DEFAULT-VALUE})")
    int count;

    @Option(names = "--ids", description = "with --count: print every job's id, one per line, instead of a summary")
    boolean ids;

    @Override
    public Integer call() {
        BrokerNames.requireTask("TASK", task);
        EnqueueOptions options = EnqueueOptions.onQueue(queue);
        if (delay != null) {
            options = options.delay(delay);
        }
        if (dedupe != null) {
            options = options.dedupe(dedupe, dedupeTtl);
        }
        if (attempts != null) {
            options = options.attempts(attempts);
        }
        EnqueueOptions chosen = options;
        return broker.use(provider -> {
            Producer producer = JobProducer.forProvider(provider);
            boolean each = count == 1 || ids;
            long skipped = 0;
            String first = null;
            String last = null;
            for (int i = 0; i < count; i++) {
                EnqueueResult result = producer.enqueueJson(task, payload, chosen);
                if (result.deduplicated()) {
                    skipped++;
                } else {
                    first = first == null ? result.id() : first;
                    last = result.id();
                }
                if (each) {
                    System.out.println(
                            result.deduplicated() ? "skipped: dedupe key '" + dedupe + "' is taken" : result.id());
                }
            }
            if (!each) {
                System.out.println("enqueued " + (count - skipped) + " of " + count + " jobs onto " + queue
                        + (first == null ? "" : " (first " + first + ", last " + last + "; --ids prints every id)")
                        + (skipped == 0 ? "" : "; " + skipped + " skipped: dedupe key '" + dedupe + "' is taken"));
            }
            return 0;
        });
    }
}
