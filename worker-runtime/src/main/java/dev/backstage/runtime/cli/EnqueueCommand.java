package dev.backstage.runtime.cli;

import dev.backstage.runtime.api.EnqueueOptions;
import dev.backstage.runtime.api.EnqueueResult;
import dev.backstage.runtime.api.Producer;
import dev.backstage.runtime.core.JobProducer;
import dev.backstage.runtime.core.PayloadCodec;
import dev.backstage.runtime.spi.Provider;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code backstage enqueue <task> <payload-json>}. */
@Command(name = "enqueue", description = "Enqueue a job (payload is JSON text).")
class EnqueueCommand implements Callable<Integer> {
    @Mixin
    BrokerOptions broker;

    @Parameters(index = "0", description = "task name")
    String task;

    @Parameters(index = "1", defaultValue = "{}", description = "payload as JSON (default {})")
    String payload;

    @Option(names = "--queue", defaultValue = "default")
    String queue;

    @Option(names = "--delay", description = "delay, e.g. 500ms, 30s, 5m (needs delays)")
    String delay;

    @Option(names = "--dedupe", description = "dedupe key (needs dedupe)")
    String dedupe;

    @Option(names = "--dedupe-ttl", defaultValue = "1h")
    String dedupeTtl;

    @Option(names = "--attempts")
    Integer attempts;

    @Option(names = "--count", defaultValue = "1", description = "enqueue this many copies")
    int count;

    @Override
    public Integer call() {
        PayloadCodec codec = PayloadCodec.defaults();
        try {
            codec.decode(payload, com.fasterxml.jackson.databind.JsonNode.class); // reject non-JSON before sending
        } catch (PayloadCodec.MalformedPayloadException e) {
            throw new IllegalArgumentException("the payload argument must be JSON text, e.g. '{\"orderId\":\"o1\"}': "
                    + e.getMessage());
        }
        EnqueueOptions options = EnqueueOptions.onQueue(queue);
        if (delay != null) {
            options = options.delay(Durations.parse(delay, "--delay"));
        }
        if (dedupe != null) {
            options = options.dedupe(dedupe, Durations.parse(dedupeTtl, "--dedupe-ttl"));
        }
        if (attempts != null) {
            options = options.attempts(attempts);
        }
        try (Provider provider = broker.connect()) {
            Producer producer = JobProducer.forProvider(provider);
            for (int i = 0; i < count; i++) {
                EnqueueResult result = producer.enqueueJson(task, payload, options);
                System.out.println(result.deduplicated() ? "skipped: dedupe key '" + dedupe + "' is taken" : result.id());
            }
        }
        return 0;
    }
}
