package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.DeadLetterEntry;
import dev.backstage.runtime.spi.DeadLetterQueue;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.StreamMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The per-queue dead-letter stream {@code {p}:{q}:dead-letter}. Redrive puts each entry back on
 * {@code {p}:{q}} with its original job fields plus {@code jobId} (the job's id before it was dead-lettered, so
 * the idempotency key is the same after a redrive, as on RabbitMQ and Kafka) and removes it from the dead-letter stream in one atomic
 * script, entry by entry: an interrupted redrive leaves every entry either moved or still dead-lettered.
 */
final class RedisDeadLetters implements DeadLetterQueue {
    private static final Set<String> DEAD_LETTER_FIELDS =
            Set.of("originalId", "deliveryCount", "deadLetteredAt", "error");

    private final RedisProvider provider;

    RedisDeadLetters(RedisProvider provider) {
        this.provider = provider;
    }

    @Override
    public List<DeadLetterEntry> list(String queue, int limit) {
        return page(queue, null, limit);
    }

    @Override
    public List<DeadLetterEntry> page(String queue, String afterId, int limit) {
        List<DeadLetterEntry> out = new ArrayList<>();
        // XRANGE with an exclusive start "(id": the page after the last entry the reader saw.
        String from = afterId == null ? "-" : "(" + afterId;
        for (StreamMessage<String, String> m :
                provider.sync().xrange(provider.keys().deadLetter(queue), Range.create(from, "+"), Limit.from(limit))) {
            Map<String, String> b = m.getBody();
            out.add(new DeadLetterEntry(
                    m.getId(),
                    queue,
                    b.get("taskName"),
                    b.get("payload"),
                    b.get("error"),
                    JobEntryCodec.parseInt(b.get("deliveryCount")),
                    JobEntryCodec.parseLong(b.get("deadLetteredAt")),
                    b.get("originalId"),
                    JobEntryCodec.parseLong(b.get("enqueuedAt"))));
        }
        return out;
    }

    @Override
    public long count(String queue) {
        return provider.sync().xlen(provider.keys().deadLetter(queue));
    }

    @Override
    public long redrive(String queue, int limit) {
        String dlq = provider.keys().deadLetter(queue);
        String stream = provider.keys().stream(queue);
        // Only the dead letters there when the redrive starts: a redriven job that fails again is dead-lettered
        // anew (a later id), and must not be moved again by the same redrive.
        List<StreamMessage<String, String>> last =
                provider.sync().xrevrange(dlq, Range.create("-", "+"), Limit.from(1));
        if (last.isEmpty()) {
            return 0;
        }
        String upTo = last.get(0).getId();
        String from = "-";
        long moved = 0;
        while (moved < limit) {
            List<StreamMessage<String, String>> batch =
                    provider.sync().xrange(dlq, Range.create(from, upTo), Limit.from(Math.min(100, limit - moved)));
            if (batch.isEmpty()) {
                break;
            }
            from = "(" + batch.get(batch.size() - 1).getId();
            // The batch's moves are pipelined (one round trip per batch, not per job); each is its own atomic script.
            List<io.lettuce.core.RedisFuture<String>> moves = new ArrayList<>(batch.size());
            for (StreamMessage<String, String> entry : batch) {
                moves.add(provider.async()
                        .eval(
                                RedisScripts.REDRIVE,
                                ScriptOutputType.VALUE,
                                new String[] {dlq, stream},
                                redriveArgs(entry)));
            }
            for (io.lettuce.core.RedisFuture<String> move : moves) {
                String added;
                try {
                    added = move.get(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    throw new dev.backstage.runtime.spi.BackstageException(
                            "redrive of " + dlq + " stopped after " + moved + " job(s): " + e.getMessage(), e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new dev.backstage.runtime.spi.BackstageException(
                            "redrive of " + dlq + " interrupted after " + moved + " job(s)", e);
                }
                if (added != null) { // null: another redrive moved it first
                    moved++;
                }
            }
        }
        return moved;
    }

    @Override
    public boolean supportsSingleEntries() {
        return true;
    }

    @Override
    public boolean redriveOne(String queue, String id) {
        String dlq = provider.keys().deadLetter(queue);
        List<StreamMessage<String, String>> found = provider.sync().xrange(dlq, Range.create(id, id), Limit.from(1));
        if (found.isEmpty()) {
            return false;
        }
        String added = provider.sync()
                .eval(
                        RedisScripts.REDRIVE,
                        ScriptOutputType.VALUE,
                        new String[] {dlq, provider.keys().stream(queue)},
                        redriveArgs(found.get(0)));
        return added != null; // null: moved by another redrive between the read and the script
    }

    @Override
    public boolean delete(String queue, String id) {
        return provider.sync().xdel(provider.keys().deadLetter(queue), id) > 0;
    }

    /** The REDRIVE script's ARGV: the dead letter's id, then the job's fields as they go back onto the queue. */
    private static String[] redriveArgs(StreamMessage<String, String> entry) {
        List<String> args = new ArrayList<>();
        args.add(entry.getId());
        Map<String, String> job = new LinkedHashMap<>(entry.getBody());
        // The job id goes back with the job: the first dead-lettering's source entry id, unless it had one.
        String jobId = job.getOrDefault(RedisDelivery.JOB_ID_FIELD, job.get("originalId"));
        job.keySet().removeAll(DEAD_LETTER_FIELDS);
        if (jobId != null && !jobId.isEmpty()) {
            job.put(RedisDelivery.JOB_ID_FIELD, jobId);
        }
        job.forEach((k, v) -> {
            args.add(k);
            args.add(v);
        });
        return args.toArray(String[]::new);
    }
}
