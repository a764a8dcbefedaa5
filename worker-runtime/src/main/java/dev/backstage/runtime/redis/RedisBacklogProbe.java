package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.BacklogProbe;
import dev.backstage.runtime.spi.BacklogReport;
import dev.backstage.runtime.spi.BacklogUnavailableException;
import dev.backstage.runtime.spi.QueueBacklog;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.models.stream.PendingMessages;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Backlog per queue from the broker's own figures: {@code XINFO GROUPS} gives the group's {@code lag}
 * (undelivered) and {@code pending} (in flight); XPENDING's summary and the first undelivered entry give
 * the oldest age; {@code XLEN} of the dead-letter stream gives dead letters.
 *
 * <p>The cumulative counters come from the broker too: {@code entries-added} of {@code XINFO STREAM} is every
 * job ever added to the stream; the group's {@code entries-read} minus its {@code pending} is every job the
 * group has settled (read and acknowledged; a retry or a dead-letter acks the original). A group that has not
 * read yet reports no {@code entries-read}; while Redis still states the lag, what was read is
 * {@code entries-added - lag}. When Redis can state neither (deletions inside the unread range) the completed
 * count is unknown (null), never guessed.
 *
 * <p>When Redis cannot state the lag (it reports nil after deletions inside the unread range), the
 * probe counts the entries after the group's last-delivered id itself and says so in the note. A missing
 * group counts the whole stream, since a group created at {@code 0} will deliver all of it.
 */
final class RedisBacklogProbe implements BacklogProbe {
    private static final int COUNT_CAP = 100_000;

    private final RedisProvider provider;

    RedisBacklogProbe(RedisProvider provider) {
        this.provider = provider;
    }

    @Override
    public BacklogReport measure(List<String> queues, String consumerGroup) {
        try {
            // Every queue's first four commands go out at once and are awaited together: one round trip and one
            // wake-up per poll instead of four per queue (the operator polls every pool every few seconds).
            List<Replies> replies = new ArrayList<>();
            for (String queue : queues) {
                replies.add(new Replies(queue, provider.async()));
            }
            List<QueueBacklog> out = new ArrayList<>();
            for (Replies reply : replies) {
                out.add(measureQueue(reply, consumerGroup));
            }
            return new BacklogReport(Instant.now(), out);
        } catch (RedisCommandExecutionException e) {
            throw new BacklogUnavailableException("BrokerError", "redis refused a command: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            // Connection refused, timed out, or closed: the broker cannot be read now.
            throw new BacklogUnavailableException(
                    "BrokerUnreachable",
                    "redis at " + provider.settings().redactedUri() + " unreachable: " + e.getMessage(),
                    e);
        }
    }

    /** The commands every queue needs, sent without waiting. */
    private final class Replies {
        final String queue;
        final String stream;
        final RedisFuture<Long> deadLetters;
        final RedisFuture<Long> exists;
        final RedisFuture<List<Object>> streamInfo;
        final RedisFuture<List<Object>> groups;

        Replies(String queue, RedisClusterAsyncCommands<String, String> redis) {
            this.queue = queue;
            this.stream = provider.keys().stream(queue);
            this.deadLetters = redis.xlen(provider.keys().deadLetter(queue));
            this.exists = redis.exists(stream);
            // Both fail with "no such key" when the stream does not exist; then they are not read.
            this.streamInfo = redis.xinfoStream(stream);
            this.groups = redis.xinfoGroups(stream);
        }
    }

    private <T> T await(RedisFuture<T> reply) {
        return LettuceFutures.awaitOrCancel(reply, provider.commandTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    private QueueBacklog measureQueue(Replies replies, String group) {
        String queue = replies.queue;
        String stream = replies.stream;
        long deadLetters = await(replies.deadLetters);
        long now = System.currentTimeMillis();
        if (await(replies.exists) == 0) {
            return new QueueBacklog(
                    queue, 0, 0, deadLetters, null, List.of(), "stream " + stream + " does not exist yet", 0L, null);
        }
        Long enqueued =
                StreamInfo.asLong(StreamInfo.toMap(await(replies.streamInfo)).get("entries-added"));
        Map<String, Object> info = StreamInfo.groups(await(replies.groups)).stream()
                .filter(g -> group.equals(g.get("name")))
                .findFirst()
                .orElse(null);
        if (info == null) {
            long length = provider.sync().xlen(stream);
            Long oldest = oldestEntryAge(stream, "-", now);
            return new QueueBacklog(
                    queue,
                    length,
                    0,
                    deadLetters,
                    oldest,
                    List.of(),
                    "group " + group + " missing: the whole stream counts as undelivered",
                    enqueued,
                    null);
        }
        long pending = StreamInfo.asLong(info.get("pending"));
        String lastDelivered = String.valueOf(info.get("last-delivered-id"));
        Long lag = StreamInfo.asLong(info.get("lag"));
        Long entriesRead = StreamInfo.asLong(info.get("entries-read"));
        if (entriesRead == null && lag != null && enqueued != null) {
            entriesRead = enqueued - lag;
        }
        Long completed = entriesRead == null ? null : Math.max(0, entriesRead - pending);
        String note = null;
        if (lag == null) {
            List<StreamMessage<String, String>> unread =
                    provider.sync().xrange(stream, Range.create(lastDelivered, "+"), Limit.from(COUNT_CAP + 1));
            lag = unread.stream().filter(m -> !m.getId().equals(lastDelivered)).count();
            note = "redis reported no lag (entries deleted in the unread range): counted entries after " + lastDelivered
                    + (lag > COUNT_CAP ? " (capped at " + COUNT_CAP + ")" : "");
        }
        Long oldest = null;
        if (pending > 0) {
            PendingMessages summary = provider.sync().xpending(stream, group);
            if (summary.getMessageIds() != null && summary.getMessageIds().getLower() != null) {
                oldest = now
                        - StreamInfo.idMillis(summary.getMessageIds().getLower().getValue());
            }
        }
        if (lag > 0) {
            Long undeliveredAge = oldestEntryAge(stream, "(" + lastDelivered, now);
            if (undeliveredAge != null && (oldest == null || undeliveredAge > oldest)) {
                oldest = undeliveredAge;
            }
        }
        return new QueueBacklog(queue, lag, pending, deadLetters, oldest, List.of(), note, enqueued, completed);
    }

    private Long oldestEntryAge(String stream, String from, long now) {
        List<StreamMessage<String, String>> first =
                provider.sync().xrange(stream, Range.create(from, "+"), Limit.from(1));
        return first.isEmpty()
                ? null
                : Math.max(0, now - StreamInfo.idMillis(first.get(0).getId()));
    }
}
