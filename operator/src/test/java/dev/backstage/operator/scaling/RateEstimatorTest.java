package dev.backstage.operator.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Rates from histories in {@link SampleScript} notation; {@code -} means the rate is unknown. */
class RateEstimatorTest {
    private final RateEstimator estimator = new RateEstimator();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
        # case                                                  | window | conc | history                                              | arrivals/s | per replica/s | missing contains
        steady backlog, arrival counter: completions = arrivals | 60     | -    | 0-60/5:600+0@10 a20/s                                          | 20.0       | 2.0           | -
        steady backlog, completion counter only                 | 60     | -    | 0-60/5:600+0@10 c20/s                                          | 20.0       | 2.0           | -
        growing backlog: completions are arrivals minus growth  | 60     | -    | 0:0+0@5 a0, 5:10+0@5 a150, 10:20+0@5 a300, 15:30+0@5 a450      | 30.0       | 5.6           | -
        in-flight work counts as outstanding too                | 60     | -    | 0:100+0@5 a0, 5:80+40@5 a150                                   | 30.0       | 5.2           | -
        queue empty: arrivals known, capacity not measurable    | 60     | -    | 0-60/5:0+8@4 a10/s                                             | 10.0       | -             | not seen busy
        no counters at all                                      | 60     | -    | 0-60/5:50+0@4                                                  | -          | -             | no arrival or completion counter
        one sample only                                         | 60     | -    | 0:50+0@4 a0                                                    | -          | -             | one sample only
        busy replicas completing nothing                        | 60     | -    | 0-60/5:50+0@4 c0                                               | 0.0        | 0.0           | completed nothing
        only the window counts                                  | 30     | -    | 0-30/5:600+0@10 a40/s, 35-60/5:600+0@10 a20/s+600              | 20.0       | 2.0           | -
        without the window, the older rate shows                | 60     | -    | 0-30/5:600+0@10 a40/s, 35-60/5:600+0@10 a20/s+600              | 30.0       | 3.0           | -
        a counter reset skips its interval                      | 60     | -    | 0-30/5:600+0@10 a20/s, 35-60/5:600+0@10 a20/s-700              | 20.0       | 2.0           | -
        an unavailable sample splits the pairs                  | 60     | -    | 0-25/5:600+0@10 a20/s, 30:ERR(Timeout), 35-60/5:600+0@10 a20/s | 20.0       | 2.0           | -
        replicas counted as the mean of both ends               | 60     | -    | 0:600+0@5 a0, 5:600+0@15 a100                                  | 20.0       | 2.0           | -
        no ready replica at one end: capacity not measured      | 60     | -    | 0:600+0@0 a0, 5:600+0@10 a100                                  | 20.0       | -             | not seen busy
        idle slots: capacity from job time x concurrency        | 60     | 4    | 0-60/5:0+8@4 a10/s                                             | 10.0       | 5.0           | -
        measured-while-busy is preferred over job time          | 60     | 8    | 0-60/5:600+40@10 a20/s                                         | 20.0       | 2.0           | -
        job time needs in-flight counts                         | 60     | 4    | 0-60/5:0+?@4 a10/s                                             | 10.0       | -             | not seen busy
        no job time from an in-flight count of zero             | 60     | 4    | 0-60/5:0+0@4 a10/s                                             | 10.0       | -             | not seen busy
        unknown concurrency is named as missing                 | 60     | -    | 0-60/5:0+8@4 a10/s                                             | 10.0       | -             | and the concurrency is unknown
        """)
    void estimates(String name, long windowSeconds, Integer concurrency, String history, Double arrivals,
                   Double perReplica, String missing) {
        SampleHistory samples = SampleScript.history(history);
        RateEstimate estimate = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(windowSeconds),
                concurrency);

        assertEquals(arrivals, round(estimate.arrivalsPerSecond()), name);
        assertEquals(perReplica, round(estimate.completionsPerReplicaSecond()), name);
        if (missing == null) {
            assertNull(estimate.missing(), name);
        } else {
            assertTrue(estimate.missing().contains(missing), estimate.missing());
        }
    }

    private static Double round(Double value) {
        return value == null ? null : Math.round(value * 1000) / 1000.0;
    }

    @Test
    void givenAStepInArrivals_whenEstimated_thenTheNewestIntervalShowsItAndIsServed() {
        SampleHistory samples = SampleScript.history("0-55/5:600+0@10 a20/s, 60:600+0@10 a1300");

        RateEstimate estimate = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(60), null);

        assertEquals(21.667, round(estimate.arrivalsPerSecond()));
        assertEquals(40.0, round(estimate.latestArrivalsPerSecond()));
        assertEquals(40.0, round(estimate.arrivalsToServe()));
        assertEquals(RateEstimate.MEASURED_WHILE_BUSY, estimate.capacitySource());
    }

    @Test
    void givenOneExtraArrivalAtALowRate_whenEstimated_thenItIsNoiseNotAStep() {
        SampleHistory samples = SampleScript.history("0-55/5:0+12@12 a0.1/s, 60:0+12@12 a7");

        RateEstimate estimate = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(60), 1);

        assertNull(estimate.latestArrivalsPerSecond());
        assertEquals(0.117, round(estimate.arrivalsToServe()));
    }

    @Test
    void givenJobsLongerThanTheWindow_whenEstimated_thenJobTimeIsNotTrusted() {
        // 12 in flight, 0.1 completions/s: jobs take 120 s, longer than the 60 s window.
        SampleHistory samples = SampleScript.history("0-60/5:0+12@12 a0.1/s");

        RateEstimate shortWindow = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(60), 1);
        RateEstimate longWindow = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(300), 1);

        assertNull(shortWindow.completionsPerReplicaSecond());
        assertNull(longWindow.completionsPerReplicaSecond(), "the history itself is only 60 s long");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
        # case                                                  | history                                                    | trend now | slope | expected in 15 s
        steady arrivals: a flat line at the rate                | 0-60/5:0+20@2 a10/s                                        | 10.0      | 0.0   | 10.0
        a ramp: the line carried to now, and its slope          | 30:100+0@10 a600 c600, 35:100+0@10 a700 c700, 40:105+0@10 a805 c800, 45:115+0@10 a915 c900, 50:130+0@10 a1030 c1000, 55:150+0@10 a1150 c1100, 60:175+0@10 a1275 c1200 | 25.5      | 0.2   | 28.5
        only the newest 30 s count for the slope                | 0-30/5:0+20@2 a40/s, 35-60/5:0+20@2 a10/s+900               | 10.0      | 0.0   | 10.0
        a step in the newest interval does not tilt the line    | 0-55/5:100+0@10 c20/s, 60:200+0@10 c20/s                   | 20.0      | 0.0   | 40.0
        arrivals stopped: the newest interval is the rate now   | 30:100+0@10 a600 c600, 35:100+0@10 a700 c700, 40:105+0@10 a805 c800, 45:115+0@10 a915 c900, 50:130+0@10 a1030 c1000, 55:150+0@10 a1150 c1100, 60:50+0@10 a1150 c1200  | 0.0       | 0.0   | 0.0
        a gently falling rate counts as flat, at the median     | 0:0+20@2 a0, 5:0+20@2 a100, 10:0+20@2 a198, 15:0+20@2 a294, 20:0+20@2 a388 | 19.4 | 0.0 | 19.4
        a rate falling beyond chance: the newest interval's     | 0:0+20@2 a0, 5:0+20@2 a150, 10:0+20@2 a275, 15:0+20@2 a375, 20:0+20@2 a450 | 15.0 | 0.0 | 15.0
        two intervals are too few for a line: the mean rate     | 0:0+20@2 a0, 5:0+20@2 a50, 10:0+20@2 a150                  | 15.0      | 0.0   | 15.0
        """)
    void fitsTheArrivalTrend(String name, String history, double now, double slope, double expectedIn15) {
        SampleHistory samples = SampleScript.history(history);
        RateEstimate estimate = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(60), 4);

        assertEquals(now, round(estimate.trendArrivalsPerSecond()), name);
        assertEquals(slope, round(estimate.trendPerSecondSquared()), name);
        assertEquals(expectedIn15, round(estimate.arrivalsExpectedIn(15)), name);
    }
}
