package dev.backstage.runtime.redis;

import dev.backstage.runtime.spi.ClaimingPublisher;
import dev.backstage.runtime.spi.OutgoingJob;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Cron ticks claimed and enqueued in one script ({@link RedisScripts#CLAIM_AND_ADD}) on one Redis: the claim key
 * ({@link RedisKeys#tickClaim}, in the stream's slot) holds the id of the job it enqueued. With the replica wait on,
 * the call returns only once the script's writes (or, on a retry, the claim found) are on the replicas; a wait that
 * fails throws, and the retry finds the claim and does not enqueue again.
 */
final class RedisTickClaims implements ClaimingPublisher {
    private final RedisProvider provider;

    RedisTickClaims(RedisProvider provider) {
        this.provider = provider;
    }

    @Override
    public Result claimAndPublish(String key, Duration ttl, OutgoingJob job) {
        String stream = provider.keys().stream(job.queue());
        List<String> args = new ArrayList<>();
        args.add(Long.toString(Math.max(1, ttl.toMillis())));
        for (Object field : JobEntryCodec.fields(job.taskName(), job.payloadJson(), job.enqueuedAtMs(), job.meta())) {
            args.add(field.toString());
        }
        List<Object> reply = provider.sync()
                .eval(
                        RedisScripts.CLAIM_AND_ADD,
                        ScriptOutputType.MULTI,
                        new String[] {provider.keys().tickClaim(job.queue(), key), stream},
                        args.toArray(String[]::new));
        provider.awaitReplicas(stream); // the claim and the job, or the claim a retry found
        boolean claimed = ((Number) reply.get(0)).longValue() == 1;
        String value = reply.get(1).toString();
        return new Result(claimed, claimed || !value.equals("1") ? value : null);
    }
}
