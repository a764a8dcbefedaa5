package dev.backstage.runtime.redis;

/** The Lua scripts; each runs atomically on the server. */
final class RedisScripts {
    private RedisScripts() {}

    /**
     * Promote due delayed jobs onto their streams (the TS seed script's behaviour: {@code streamKey}
     * first, options copied), in bounded batches. A member that cannot be decoded or promoted is left in
     * place and logged by count, never blocks the members after it (pcall per member).
     * KEYS[1] = {p}:scheduled; ARGV = now, prefix, batch. Returns {promoted, skipped}.
     */
    static final String PROMOTE = """
            local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
            local promoted, skipped = 0, 0
            for _, member in ipairs(due) do
              local ok, job = pcall(cjson.decode, member)
              if ok and type(job) == 'table' and type(job.payload) == 'string' then
                local key = job.streamKey
                if type(key) ~= 'string' then
                  key = ARGV[2] .. ':' .. (type(job.priority) == 'string' and job.priority or 'default')
                end
                local fields = {'taskName', type(job.taskName) == 'string' and job.taskName or '',
                                'payload', job.payload, 'enqueuedAt', tostring(job.enqueuedAt or 0)}
                if type(job.attempts) == 'number' then
                  table.insert(fields, 'attempts'); table.insert(fields, tostring(job.attempts))
                end
                if type(job.backoff) == 'string' then
                  table.insert(fields, 'backoff'); table.insert(fields, job.backoff)
                end
                if type(job.timeout) == 'number' then
                  table.insert(fields, 'timeout'); table.insert(fields, tostring(job.timeout))
                end
                local added = redis.pcall('XADD', key, '*', unpack(fields))
                if type(added) == 'table' and added.err then
                  skipped = skipped + 1
                else
                  redis.call('ZREM', KEYS[1], member)
                  promoted = promoted + 1
                end
              else
                skipped = skipped + 1
              end
            end
            return {promoted, skipped}
            """;

    /**
     * Claim a cron tick and enqueue its job in one step (a tick is never enqueued twice, even by a retry after an
     * unclear failure): when the claim key is free, XADD the job and store the entry's id as the claim's value, with
     * the claim's TTL. KEYS[1] = claim, KEYS[2] = stream (one slot: see {@link RedisKeys#tickClaim}); ARGV = TTL in
     * ms, then the job's field/value pairs. Returns {1, id} when claimed here, {0, value} when already claimed.
     */
    static final String CLAIM_AND_ADD = """
            local held = redis.call('GET', KEYS[1])
            if held then return {0, held} end
            local id = redis.call('XADD', KEYS[2], '*', unpack(ARGV, 2))
            redis.call('SET', KEYS[1], id, 'PX', ARGV[1])
            return {1, id}
            """;

    /**
     * Claim due members for a foreign jobs provider: move them from {p}:scheduled to {p}:scheduled:claimed
     * (score = claim time) and return them, together with claims abandoned longer than the retry age.
     * KEYS[1] = scheduled, KEYS[2] = claimed; ARGV = now, batch, abandonedBefore.
     */
    static final String CLAIM_DUE = """
            local out = {}
            local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[3], 'LIMIT', 0, tonumber(ARGV[2]))
            for _, member in ipairs(stale) do
              redis.call('ZADD', KEYS[2], ARGV[1], member)
              table.insert(out, member)
            end
            local room = tonumber(ARGV[2]) - #out
            if room > 0 then
              local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, room)
              for _, member in ipairs(due) do
                redis.call('ZREM', KEYS[1], member)
                redis.call('ZADD', KEYS[2], ARGV[1], member)
                table.insert(out, member)
              end
            end
            return out
            """;

    /**
     * Dead-letter in one step: XADD to the DLQ, XACK the source, optional XDEL, DEL the failure record (when
     * there is one: a topic entry has none). KEYS[1] = dlq, KEYS[2] = source stream, KEYS[3] = error key
     * (optional); ARGV = group, id, deleteOnAck, fields...
     */
    static final String DEAD_LETTER = """
            local fields = {}
            for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
            local dlId = redis.call('XADD', KEYS[1], '*', unpack(fields))
            redis.call('XACK', KEYS[2], ARGV[1], ARGV[2])
            if ARGV[3] == '1' then redis.call('XDEL', KEYS[2], ARGV[2]) end
            if #KEYS >= 3 then redis.call('DEL', KEYS[3]) end
            return dlId
            """;

    /**
     * Redrive one dead-letter entry: XDEL it from the DLQ and, only if it was still there, XADD the job back to its
     * stream, in one step, so an interrupted redrive neither loses nor duplicates an entry, and two redrives that
     * read the same entry (the console's and the CLI's at once) move it once. Returns the new entry's id, or nil
     * when the entry was already gone. KEYS[1] = dlq, KEYS[2] = stream; ARGV = dl entry id, fields...
     */
    static final String REDRIVE = """
            if redis.call('XDEL', KEYS[1], ARGV[1]) == 0 then return false end
            local fields = {}
            for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
            return redis.call('XADD', KEYS[2], '*', unpack(fields))
            """;

    /**
     * A worker's broadcast group and its consumer, in one step: {@code XGROUP CREATE … $ MKSTREAM} (an existing
     * group is kept, BUSYGROUP) then {@code XGROUP CREATECONSUMER}, so no other worker's cleanup ever sees the
     * new group without a consumer and destroys it. KEYS[1] = the broadcast stream; ARGV = group, consumer.
     */
    static final String BROADCAST_JOIN = """
            local created = redis.pcall('XGROUP', 'CREATE', KEYS[1], ARGV[1], '$', 'MKSTREAM')
            if type(created) == 'table' and created.err and not string.find(created.err, 'BUSYGROUP') then
              return created
            end
            redis.call('XGROUP', 'CREATECONSUMER', KEYS[1], ARGV[1], ARGV[2])
            return 'OK'
            """;

    /**
     * The seed's broadcast cleanup (docs/wire-format.md), atomically: every other group on the stream whose name starts
     * with ARGV[3] and whose consumers have all been idle for at least ARGV[2] ms is destroyed. A group with no
     * consumer at all is kept while nothing in the stream is newer than what it last read: Redis creates a
     * reader's consumer only when a read returns entries, so a live seed listener has none until the first
     * broadcast after it started. One that stays without a consumer while entries wait for it, on two passes in a
     * row (its names from the caller's previous pass are ARGV[4..]), has no reader and is destroyed. KEYS[1] = the
     * broadcast stream; ARGV = own group, idle threshold ms, group-name prefix, last pass's unread groups. Returns
     * {destroyed names, consumerless groups with unread entries now}.
     */
    static final String BROADCAST_CLEANUP = """
            local destroyed, unread = {}, {}
            if redis.call('EXISTS', KEYS[1]) == 0 then return {destroyed, unread} end
            local threshold = tonumber(ARGV[2])
            local last
            local info = redis.call('XINFO', 'STREAM', KEYS[1])
            for i = 1, #info, 2 do if info[i] == 'last-generated-id' then last = info[i + 1] end end
            local before = {}
            for i = 4, #ARGV do before[ARGV[i]] = true end
            for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
              local name, delivered
              for i = 1, #g, 2 do
                if g[i] == 'name' then name = g[i + 1] end
                if g[i] == 'last-delivered-id' then delivered = g[i + 1] end
              end
              if name ~= ARGV[1] and string.sub(name, 1, #ARGV[3]) == ARGV[3] then
                local consumers = redis.call('XINFO', 'CONSUMERS', KEYS[1], name)
                local stale = true
                for _, c in ipairs(consumers) do
                  for i = 1, #c, 2 do
                    if c[i] == 'idle' and tonumber(c[i + 1]) < threshold then stale = false end
                  end
                end
                if #consumers == 0 then
                  stale = false
                  if delivered ~= last then
                    if before[name] then stale = true else table.insert(unread, name) end
                  end
                end
                if stale then
                  redis.call('XGROUP', 'DESTROY', KEYS[1], name)
                  table.insert(destroyed, name)
                end
              end
            end
            return {destroyed, unread}
            """;
}
