package dev.backstage.operator.scaling;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The decision function as a table: given a policy, the current replicas and a sample history (notation in
 * {@link SampleScript}; defaults max=10 T=10 window=60 tol=0.1 min=0), then the desired count, the
 * direction, the limit and a fragment of the reason. Rows marked KEDA are traps of KEDA + the HPA.
 */
class ScalingDeciderTest {
    private final ScalingDecider decider = new ScalingDecider();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
        # case                                                      | policy                       | now | history                                                         | want | dir  | limit        | reason contains
        idle pool at zero stays at zero                              | -                            | 0   | 0-60/5:0+0                                                      | 0    | HOLD | NONE         | holding 0
        first undelivered job activates a pool at zero               | -                            | 0   | 0:1+0                                                           | 1    | UP   | NONE         | activating from zero to 1
        activation sizes for the whole backlog at once               | -                            | 0   | 0:95+0                                                          | 10   | UP   | NONE         | activating from zero to 10
        scale-up counts in-flight work and happens at once           | -                            | 2   | 0:40+20@2                                                       | 6    | UP   | NONE         | scaling up from 2 to 6 at once
        a backlog above maxReplicas is capped there                  | max=10                       | 3   | 0:500+0@3                                                       | 10   | UP   | MAX_REPLICAS | capped at maxReplicas 10; the need asks for 50
        KEDA: Kafka lag above the cap goes to the partition count    | max=50 partitions=12         | 3   | 0:400+0@3                                                       | 12   | UP   | PARTITIONS   | capped by the partition count 12
        KEDA: Kafka one below the cap does not stall there           | max=50 partitions=12         | 11  | 0:125+0@11                                                      | 12   | UP   | PARTITIONS   | scaling up from 11 to 12
        Kafka need exactly at the partition count is not limited     | max=50 partitions=12         | 11  | 0:115+0@11                                                      | 12   | UP   | NONE         | scaling up from 11 to 12
        Kafka at the cap with a growing lag holds at the cap         | max=50 partitions=12         | 12  | 0-60/5:5000+0@12                                                | 12   | HOLD | PARTITIONS   | the need asks for 500
        Kafka maxReplicas below the partition count is the bound     | max=8 partitions=12          | 3   | 0:400+0@3                                                       | 8    | UP   | MAX_REPLICAS | capped at maxReplicas 8
        minReplicas wins over a smaller partition count              | min=5 max=10 partitions=3    | 5   | 0:400+0@5                                                       | 5    | HOLD | PARTITIONS   | holding 5
        minReplicas keeps an idle pool warm                          | min=2                        | 2   | 0-60/5:0+0@2                                                    | 2    | HOLD | MIN_REPLICAS | kept at minReplicas 2
        a raised minReplicas is applied without waiting              | min=3                        | 1   | 0:0+0@1                                                         | 3    | UP   | MIN_REPLICAS | kept at minReplicas 3
        KEDA: busy workers with an empty ready queue are not scaled in | -                          | 4   | 0-60/5:0+40@4                                                   | 4    | HOLD | NONE         | 40 outstanding (0 undelivered + 40 in flight)
        never to zero while one job is in flight                     | -                            | 1   | 0-60/5:0+1@1                                                    | 1    | HOLD | NONE         | holding 1
        idle for the whole window scales to zero                     | -                            | 3   | 0-60/5:0+0@3                                                    | 0    | DOWN | NONE         | nothing outstanding or arriving for 60 s
        idle for half the window does not scale to zero              | -                            | 3   | 0-25/5:30+0@3, 30-60/5:0+0@3                                    | 3    | HOLD | NONE         | highest need over the last 60 s was 3.0 replicas
        a quiet full window scales down, keeping headroom            | -                            | 10  | 0-60/5:40+0@10                                                  | 5    | DOWN | NONE         | scaling down from 10 to 5: highest need over the last 60 s was 4.0 replicas, 5 with 10 % headroom
        one spike inside the window holds the count                  | -                            | 10  | 0-25/5:40+0@10, 30:95+0@10, 35-60/5:40+0@10                     | 10   | HOLD | NONE         | was 9.5 replicas
        KEDA: need wobbling around a threshold does not flap down    | max=20                       | 11  | 0-60/10:99+0@11, 5-55/10:101+0@11                               | 11   | HOLD | NONE         | 12 with 10 % headroom
        just over a threshold scales up by one at once               | max=20                       | 10  | 0:101+0@10                                                      | 11   | UP   | NONE         | scaling up from 10 to 11 at once
        tolerance: a need 5 % below the count holds                  | -                            | 10  | 0-60/5:95+0@10                                                  | 10   | HOLD | NONE         | 11 with 10 % headroom
        calm: a need 20 % below the count holds within the band      | -                            | 10  | 0-60/5:80+0@10                                                  | 10   | HOLD | NONE         | the window allows 9, within the band of 2 replicas below the count
        calm: a need 40 % below the count scales down                | -                            | 10  | 0-60/5:60+0@10                                                  | 7    | DOWN | NONE         | scaling down from 10 to 7
        calm: after a recent move a 10 % drop stays in the 20 % band | max=60                       | 36  | 0-60/5:285+0@36 r40, 65-180/5:285+0@36 r36                      | 36   | HOLD | NONE         | the window allows 32, within the band of 8 replicas below the count
        calm: a count held for 120 s comes down by the tolerance      | max=60                       | 36  | 0-180/5:285+0@36 r36                                            | 32   | DOWN | NONE         | scaling down from 36 to 32
        calm: a down-move within 60 s of the last one waits          | -                            | 8   | 0-30/5:50+0@8 r10, 35-60/5:50+0@8 r8                            | 8    | HOLD | NONE         | the window allows 6, but the last scale-down was 30 s ago (down-moves at most every 60 s
        calm: a down-move 60 s after the last one goes ahead         | -                            | 8   | 0-5/5:50+0@8 r10, 10-70/5:50+0@8 r8                             | 6    | DOWN | NONE         | scaling down from 8 to 6
        calm: a move that halves the count waits 15 s only            | -                            | 40  | 0-60/5:50+0@40 r60, 65-80/5:50+0@40 r40                         | 6    | DOWN | NONE         | scaling down from 40 to 6
        calm: a smaller move 20 s after the last one waits            | max=60                       | 40  | 0-60/5:250+0@40 r60, 65-80/5:250+0@40 r40                       | 40   | HOLD | NONE         | the window allows 28, but the last scale-down was 20 s ago
        calm: an up-move does not hold scale-downs beyond the window  | -                            | 40  | 0-20/5:50+0@20 r20, 25-80/5:50+0@40 r40                         | 6    | DOWN | NONE         | scaling down from 40 to 6
        zero tolerance scales down to exactly the need               | tol=0                        | 10  | 0-60/5:40+0@10                                                  | 4    | DOWN | NONE         | 4 with 0 % headroom
        a zero window scales down on the newest sample               | window=0                     | 10  | 0:40+0@10                                                       | 5    | DOWN | NONE         | scaling down from 10 to 5
        the operator just started: no scale-down before a full window | -                           | 10  | 30-60/5:0+0@10                                                  | 10   | HOLD | NONE         | only 30 s of the 60 s scale-down window observed so far
        no sample yet: hold                                          | -                            | 3   | -                                                               | 3    | HOLD | NONE         | no backlog sample yet
        unknown in-flight count keeps one replica, not zero          | -                            | 3   | 0-60/5:0+?@3                                                    | 1    | DOWN | NONE         | the broker cannot tell what is in flight
        broker error: hold whatever the earlier samples said         | -                            | 5   | 0-55/5:300+0@5, 60:ERR(BrokerUnreachable)                       | 5    | HOLD | NONE         | backlog unavailable (BrokerUnreachable: broker said no); holding 5
        broker error: the policy bounds still apply                  | max=4                        | 6   | 0:ERR(BrokerUnreachable)                                        | 4    | DOWN | MAX_REPLICAS | no backlog-driven change on a missing figure (capped at maxReplicas 4)
        KEDA: broker error mid-window blocks a scale-down            | -                            | 8   | 0-25/5:80+0@8, 30:ERR(BrokerUnreachable), 35-60/5:10+0@8        | 8    | HOLD | NONE         | backlog was unavailable at 2025-01-01T00:00:30Z (BrokerUnreachable) within the 60 s scale-down window
        broker error mid-window does not block a scale-up            | -                            | 4   | 0-25/5:40+0@4, 30:ERR(Timeout), 35-55/5:40+0@4, 60:90+0@4       | 9    | UP   | NONE         | scaling up from 4 to 9 at once
        KEDA: a probe error on a missing stream is not a zero: hold  | -                            | 3   | 0-55/5:0+0@3, 60:ERR(StreamMissing)                             | 3    | HOLD | NONE         | StreamMissing
        a stream not created yet is a measured zero: scales to zero  | -                            | 2   | 0-60/5:0+0@2 note=stream_does_not_exist_yet                     | 0    | DOWN | NONE         | [stream does not exist yet]
        KEDA: Kafka group with no committed offset counts the whole log | max=50 partitions=6       | 0   | 0:5000+0@0 note=lag_counted_from_log_start                      | 6    | UP   | PARTITIONS   | [lag counted from log start]
        missing Redis group: the stream length is the undelivered count | -                         | 1   | 0:70+0@1 note=group_missing_so_stream_length_counted            | 7    | UP   | NONE         | [group missing
        drain target wins when arrivals outpace the backlog target   | T=100 max=40 drain=60        | 10  | 0-60/5:600+0@10 a20/s                                           | 15   | UP   | NONE         | the drain target needs more: 15.0 (clear the undelivered in 60 s at 2.0 jobs/s per replica (measured while busy) while 20.0 jobs/s arrive)
        the backlog target wins when the drain target asks less      | T=10 max=100 drain=60        | 10  | 0-60/5:600+0@10 a20/s                                           | 60   | UP   | NONE         | the drain target needs 15.0
        drain rates from a completion counter alone                  | T=100 max=40 drain=60        | 10  | 0-60/5:600+0@10 c20/s                                           | 15   | UP   | NONE         | 2.0 jobs/s per replica (measured while busy) while 20.0 jobs/s arrive
        concurrency: scale-down keeps the busy replicas               | conc=4 max=20                | 14  | 0-60/5:0+40@14                                                  | 11   | DOWN | NONE         | 10.0 busy at concurrency 4; scaling down from 14 to 11
        concurrency: without it the backlog target alone scales in     | max=20                       | 12  | 0-60/5:0+40@12                                                  | 5    | DOWN | NONE         | scaling down from 12 to 5
        concurrency does not scale up on terminating pods' jobs        | conc=4 max=20                | 5   | 0:0+28@5                                                        | 5    | HOLD | NONE         | holding 5
        with no queue, the drain target from job time is the busy count | T=100 max=40 drain=60 conc=4 | 4 | 0-60/5:0+16@4 a8/s                                              | 4    | HOLD | NONE         | the drain target needs more: 4.0 (clear the undelivered in 60 s at 2.0 jobs/s per replica (from job time x concurrency) while 8.0 jobs/s arrive)
        drain target answers an arrival step at the next poll        | T=100 max=40 drain=60        | 10  | 0-55/5:600+0@10 a20/s, 60:700+0@10 a1300                        | 26   | UP   | NONE         | needs more: 25.8 (clear the undelivered in 60 s at 2.0 jobs/s per replica (measured while busy) while 40.0 jobs/s arrive)
        BUG: drain after a step down keeps up with the new level     | T=100 max=40 drain=30 conc=4 | 20  | 0-50/5:0+80@20 a40/s, 55-115/5:0+8@20 a4/s+1800                | 3    | DOWN | NONE         | while 4.0 jobs/s arrive); scaling down from 20 to 3
        BUG: drain after arrivals stopped does not keep their mean    | T=1 max=40 drain=600 rate=300 conc=1 | 13 | 0-230/10:0+12@12 a0.1/s, 240:0+11@12 a23, 250:0+10@12 a23, 260:0+9@12 a23, 270:0+8@12 a23, 280:0+7@12 a23, 290:0+6@12 a23, 300:0+5@12 a23 | 13 | HOLD | NONE | the drain target needs 0.0 (clear the undelivered in 600 s at 0.0 jobs/s per replica (from job time x concurrency) while 0.0 jobs/s arrive)
        drain target without a busy interval falls back to backlog   | T=10 drain=60                | 2   | 0-60/5:0+15@2 a3/s                                              | 2    | HOLD | NONE         | drain target not computed (replicas were not seen busy with jobs waiting
        drain target without counters falls back to backlog          | T=10 drain=60                | 2   | 0-60/5:15+0@2                                                   | 2    | HOLD | NONE         | drain target not computed (no arrival or completion counter
        BUG: jobs prefetched beyond the slots are no slow jobs          | conc=4 max=20                | 2   | 0-60/5:0+20@2 a10/s                                             | 2    | HOLD | NONE         | arrivals need 2.0 (10.0 jobs/s expected in 15 s, at 5.0 jobs/s per replica (from job time x concurrency))
        rising arrivals are sized for start-up + one poll ahead      | T=100 max=40                 | 10  | 30:100+0@10 a600 c600, 35:100+0@10 a700 c700, 40:105+0@10 a805 c800, 45:115+0@10 a915 c900, 50:130+0@10 a1030 c1000, 55:150+0@10 a1150 c1100, 60:175+0@10 a1275 c1200 | 18   | UP   | NONE         | arrivals need more: 14.3 (28.5 jobs/s expected in 15 s, rising 0.20 jobs/s per s, at 2.0 jobs/s per replica (measured while busy)); scaling up from 10 to 18 at once: arrivals rising, sized 120 s further ahead (18 instead of 15)
        without start-up time the forecast covers one poll only      | T=100 max=40 startup=0       | 10  | 30:100+0@10 a600 c600, 35:100+0@10 a700 c700, 40:105+0@10 a805 c800, 45:115+0@10 a915 c900, 50:130+0@10 a1030 c1000, 55:150+0@10 a1150 c1100, 60:175+0@10 a1275 c1200 | 17   | UP   | NONE         | 26.5 jobs/s expected in 5 s
        calm: a rising line's batch adds at most a quarter            | T=100 max=40 startup=0       | 10  | 30:100+0@10 a600 c600, 35:100+0@10 a700 c700, 40:105+0@10 a805 c800, 45:115+0@10 a915 c900, 50:130+0@10 a1030 c1000, 55:150+0@10 a1150 c1100, 60:175+0@10 a1275 c1200 | 17   | UP   | NONE         | (17 instead of 14)
        calm: a batched scale-up is not undone at the next poll       | T=100 max=40                 | 18  | 30:100+0@10 a600 c600, 35:100+0@10 a700 c700, 40:105+0@10 a805 c800, 45:115+0@10 a915 c900, 50:130+0@10 a1030 c1000, 55:150+0@10 a1150 c1100, 60:175+0@10 a1275 c1200 | 18   | HOLD | NONE         | holding 18
        BUG: ready count changing inside an interval is no slow replica | T=100 max=60 conc=4       | 30  | 0:400+8@2 a408 c0, 5:860+8@2 a908 c40, 10:1320+8@30 a1408 c80    | 30   | HOLD | NONE         | arrivals need more: 25.0 (100.0 jobs/s expected in 15 s, at 4.0 jobs/s per replica (measured while busy and from job time x concurrency, weighted by jobs))
        BUG: a burst after an idle gap does not first scale down     | conc=4 max=60                | 30  | 0-55/5:0+0@30 a0 c0, 60:40+10@30 a250 c200                      | 30   | HOLD | NONE         | arrivals stepped up to 50.0 jobs/s in the newest interval, no scale-down while they rise
        BUG: a step two polls back is sized for the new level        | T=1000 max=100               | 10  | 0-45/5:100+0@10 a10/s c20/s, 50-60/5:100+0@10 a100/s-4050 c20/s | 50   | UP   | NONE         | arrivals need more: 50.0 (100.0 jobs/s expected in 15 s, at 2.0 jobs/s per replica (measured while busy))
        a step while jobs wait sizes for the backlog new pods find   | T=10 max=100                 | 3   | 0-55/5:100+0@3 a6/s c6/s, 60:300+0@3 a560 c360                  | 70   | UP   | NONE         | arrivals need more: 70.0 (the backlog once pods are up: 46.0 jobs/s expected, 6.0 served by the ready replicas, for 10 s of start-up)
        a step is served at once, not extrapolated as a slope        | T=100 max=40                 | 10  | 0-55/5:100+0@10 c20/s, 60:200+0@10 c20/s                        | 20   | UP   | NONE         | arrivals need more: 20.0 (40.0 jobs/s expected in 15 s, at 2.0 jobs/s per replica (measured while busy))
        arrivals that stopped are not forecast from the old slope    | T=100 max=40                 | 10  | 30:100+0@10 a600 c600, 35:100+0@10 a700 c700, 40:105+0@10 a805 c800, 45:115+0@10 a915 c900, 50:130+0@10 a1030 c1000, 55:150+0@10 a1150 c1100, 60:50+0@10 a1150 c1200  | 10   | HOLD | NONE         | arrivals need 0.0 (0.0 jobs/s expected in 15 s
        nothing ready yet: size for the backlog once pods are up     | max=40                       | 1   | 0:20+0@0 a20, 1:40+0@0 a40                                      | 24   | UP   | NONE         | arrivals need more: 24.0 (none ready yet: the backlog once pods are up, 20.0 jobs/s arriving for 10 s of start-up)
        a batch onto an idle pool is not a rate: the backlog alone   | max=40                       | 0   | 0-55/5:0+0@0 a0, 60:40+0@0 a40                                  | 4    | UP   | NONE         | activating from zero to 4
        the batch's quick sample sees no more arrivals: no forecast  | max=40                       | 4   | 0-55/5:0+0@0 a0, 60:40+0@0 a40, 61:40+0@0 a40                   | 4    | HOLD | NONE         | arrivals need 4.0 (none ready yet
        arrival sizing holds the pool through a quiet backlog window  | conc=4 max=20                | 6   | 0-60/5:0+20@6 a10/s                                             | 6    | HOLD | NONE         | highest need over the last 60 s was 5.0 replicas, 6 with 10 % headroom
        Kafka: a lag within the ready replicas' slots measures no capacity | T=100 max=50 partitions=12 conc=4 | 10 | 0-60/5:30+0@10 a20/s                        | 1    | DOWN | NONE         | scaling down from 10 to 1
        Kafka: a lag beyond the slots measures capacity, sizes for arrivals | T=100 max=50 partitions=12 conc=4 | 10 | 0-60/5:100+0@10 a20/s c20/s                | 10   | HOLD | NONE         | arrivals need more: 10.0 (20.0 jobs/s expected in 15 s, at 2.0 jobs/s per replica (measured while busy))
        calm: no scale-down while arrivals rise toward the count      | T=100 max=60                 | 40  | 0:100+0@10 a0 c0, 5:102+0@10 a102 c100, 10:110+0@10 a210 c200, 15:122+0@10 a322 c300, 20:140+0@10 a440 c400, 25:162+0@10 a562 c500, 30:190+0@10 a690 c600, 35:222+0@10 a822 c700, 40:260+0@10 a960 c800, 45:302+0@10 a1102 c900, 50:350+0@10 a1250 c1000, 55:402+0@10 a1402 c1100, 60:460+0@10 a1560 c1200 | 40 | HOLD | NONE | no scale-down while they rise
        a count far above the rising line's need still comes down    | T=100 max=100                | 80  | 0:100+0@10 a0 c0, 5:102+0@10 a102 c100, 10:110+0@10 a210 c200, 15:122+0@10 a322 c300, 20:140+0@10 a440 c400, 25:162+0@10 a562 c500, 30:190+0@10 a690 c600, 35:222+0@10 a822 c700, 40:260+0@10 a960 c800, 45:302+0@10 a1102 c900, 50:350+0@10 a1250 c1000, 55:402+0@10 a1402 c1100, 60:460+0@10 a1560 c1200 | 25 | DOWN | NONE | scaling down from 80 to 25
        BUG: a burst resuming gently after an idle gap does not first scale down | max=40         | 19  | 0-60/5:0+0@19 a0, 65:1+0@19 a1                                  | 19   | HOLD | NONE         | arrivals resumed after 60 s of none, no scale-down until their trend shows
        calm: a finished tail of two replicas goes to zero in one move | -                          | 2   | 0-5/5:0+15@2 a100, 10-65/5:0+0@2 a100                           | 0    | DOWN | NONE         | nothing outstanding, and nothing arrived for 60 s (the earlier work has finished)
        a larger finished tail keeps the window's protection          | -                            | 10  | 0-5/5:0+40@10 a100, 10-65/5:0+0@10 a100                         | 5    | DOWN | NONE         | highest need over the last 60 s was 4.0 replicas
        BUG: a worker's prefetched jobs are not read as job time      | min=1 conc=5                 | 1   | 0-55/5:0+0@1 a0 c0, 60:0+10@1 a10 c0, 61:0+14@1 a14 c0, 66:0+20@1 a34 c14 | 2 | UP | NONE     | arrivals need 1.7 (4.0 jobs/s expected in 15 s, at 2.3 jobs/s per replica (from job time x concurrency)); scaling up from 1 to 2 at once
        BUG: Kafka with slots to spare remembers an older busy capacity | T=10 max=50 partitions=12 conc=4 | 12 | 0-60/5:100+0@10 a20/s c20/s, 65-180/5:40+0@12 a20/s c20/s | 12 | HOLD | NONE | arrivals need more: 10.0 (20.0 jobs/s expected in 15 s, at 2.0 jobs/s per replica (measured while busy, 120 s ago (none in the last 60 s)))
        """)
    void givenAPolicyAndASampleHistory_whenDecided_thenTheReplicasDirectionAndLimitAreAsTabled(
            String name,
            String policy,
            int current,
            String history,
            int want,
            ScalingDirection direction,
            ScalingLimit limit,
            String reasonFragment) {
        ScalingDecision decision = decider.decide(SampleScript.policy(policy), current, SampleScript.history(history));

        assertAll(
                name,
                () -> assertEquals(want, decision.desiredReplicas(), decision.reason()),
                () -> assertEquals(direction, decision.direction(), decision.reason()),
                () -> assertEquals(limit, decision.limitedBy(), decision.reason()),
                () -> assertTrue(
                        decision.reason().contains(reasonFragment),
                        () -> "reason \"" + decision.reason() + "\" lacks \"" + reasonFragment + "\""),
                () -> assertEquals(current, decision.currentReplicas()),
                () -> assertEquals(want != current, decision.changesReplicas()));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
        # case                                                      | policy         | now | history                                            | probe again (s)
        activation from zero asks for a quick second sample          | -              | 0   | 0:1+0                                              | 1
        an arrival step on a regular poll asks for a quick sample    | T=100 max=40   | 10  | 0-55/5:100+0@10 c20/s, 60:200+0@10 c20/s           | 1
        a burst after an idle gap holds and asks for a quick sample  | conc=4 max=60  | 30  | 0-55/5:0+0@30 a0 c0, 60:40+10@30 a250 c200         | 1
        the quick sample itself asks for none                        | max=40         | 1   | 0:20+0@0 a20, 1:40+0@0 a40                         | -
        a scale-up on the backlog alone asks for none                | -              | 2   | 0:40+20@2                                          | -
        a scale-up on a steady rate asks for none                    | conc=4 max=20  | 2   | 0-60/5:0+20@2 a10/s                                | -
        holding asks for none                                        | -              | 4   | 0-60/5:0+40@4                                      | -
        """)
    void givenAStepOrAnActivation_whenDecided_thenTheNextProbeFollowsItUp(
            String name, String policy, int current, String history, Long probeAgainSeconds) {
        ScalingDecision decision = decider.decide(SampleScript.policy(policy), current, SampleScript.history(history));

        assertEquals(
                probeAgainSeconds == null ? null : java.time.Duration.ofSeconds(probeAgainSeconds),
                decision.probeAgainIn(),
                name + ": " + decision.reason());
    }
}
