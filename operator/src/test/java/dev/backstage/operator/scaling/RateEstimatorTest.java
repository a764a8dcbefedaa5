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
        BUG: pods ready at the interval's end are not counted   | 60     | -    | 0:500+0@2 c0, 5:500+0@30 c40                                   | 8.0        | -             | at a steady ready count
        BUG: after a scale-up only steady intervals measure     | 60     | -    | 0:500+0@2 c0, 5:500+0@30 c40, 10:100+0@30 c640                 | 24.0       | 4.0           | -
        a ready count changing inside the interval is skipped   | 60     | -    | 0:600+0@5 a0, 5:600+0@15 a100, 10:600+0@15 a250                | 25.0       | 2.0           | -
        no ready replica at one end: capacity not measured      | 60     | -    | 0:600+0@0 a0, 5:600+0@10 a100                                  | 20.0       | -             | not seen busy
        idle slots: capacity from job time x concurrency        | 60     | 4    | 0-60/5:0+8@4 a10/s                                             | 10.0       | 5.0           | -
        job time needs in-flight counts                         | 60     | 4    | 0-60/5:0+?@4 a10/s                                             | 10.0       | -             | not seen busy
        no job time from an in-flight count of zero             | 60     | 4    | 0-60/5:0+0@4 a10/s                                             | 10.0       | -             | not seen busy
        unknown concurrency is named as missing                 | 60     | -    | 0-60/5:0+8@4 a10/s                                             | 10.0       | -             | and the concurrency is unknown
        a busy capacity before the window is remembered         | 60     | -    | 0-60/5:600+0@10 c20/s, 65-180/5:0+8@10 c20/s                    | 20.0       | 2.0           | -
        an interval busy only inside the window is not doubled  | 60     | -    | 0-60/5:0+8@10 c20/s, 65-180/5:600+0@10 c20/s+600                | 20.0       | 2.0           | -
        """)
    void givenASampleHistory_whenEstimated_thenArrivalsAndPerReplicaRatesAreAsTabled(
            String name,
            long windowSeconds,
            Integer concurrency,
            String history,
            Double arrivals,
            Double perReplica,
            String missing) {
        SampleHistory samples = SampleScript.history(history);
        RateEstimate estimate =
                estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(windowSeconds), concurrency);

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

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
        # case                                                     | conc | history                                            | per replica/s | source contains
        busy and job time agree: their mean, weighted by jobs        | 4    | 0-60/5:600+36@10 c20/s                             | 2.111         | measured while busy and from job time x concurrency, weighted by jobs
        they disagree beyond 1.5x: the busy one, and the reason says | 8    | 0-60/5:600+40@10 c20/s                             | 2.0           | job time x concurrency says 4.0, so not every slot works
        no queue: job time alone                                     | 4    | 0-60/5:0+8@4 a10/s                                 | 5.0           | from job time x concurrency
        no concurrency: the busy measurement alone                   | -    | 0-60/5:600+0@10 c20/s                              | 2.0           | measured while busy
        BUG: job time skips intervals where the flow starts          | 4    | 0-30/5:0+0@4 a0, 35-60/5:0+8@4 a10/s-300           | 5.0           | from job time x concurrency
        """)
    void givenTwoCapacityMeasurements_whenEstimated_thenThePerReplicaRateReconcilesThem(
            String name, Integer concurrency, String history, double perReplica, String source) {
        SampleHistory samples = SampleScript.history(history);
        RateEstimate estimate = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(60), concurrency);

        assertEquals(perReplica, round(estimate.completionsPerReplicaSecond()), name);
        assertTrue(estimate.capacitySource().contains(source), name + ": " + estimate.capacitySource());
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
    void givenArrivalsSteppedDown_whenEstimated_thenTheNewLevelIsServed_notTheWindowsAverage() {
        SampleHistory samples = SampleScript.history("0-45/5:100+0@10 a40/s c20/s, 50-60/5:100+0@10 a4/s+1620 c20/s");

        RateEstimate estimate = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(60), null);

        assertEquals(31.0, round(estimate.arrivalsPerSecond()));
        assertTrue(estimate.trendIsStep());
        assertEquals(4.0, round(estimate.arrivalsToServe()), "the drain target keeps up with 4 jobs/s, not 31");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
        # case                                                           | window | history                                                      | window mean | level | to serve
        BUG: a step down that left the trend window: the new level       | 60     | 0-50/5:0+20@10 a40/s, 55-90/5:0+20@10 a4/s+1800              | 16.0        | 4.0   | 4.0
        BUG: arrivals stopped 70 s ago at 0.1 jobs/s: zero, not the mean | 300    | 0-230/10:0+12@12 a0.1/s, 240-300/10:0+12@12 a23              | 0.077       | 0.0   | 0.0
        30 s without arrivals at 0.1 jobs/s is chance: the window's mean | 300    | 0-270/10:0+12@12 a0.1/s, 280-300/10:0+12@12 a27              | 0.09        | -     | 0.09
        a burst that left the trend window: its level, not the mean      | 60     | 0-50/5:0+20@10 a0, 55-90/5:0+20@10 a20/s-1000                | 13.333      | 20.0  | 20.0
        a steady rate shows one level                                    | 60     | 0-60/5:0+20@10 a20/s                                         | 20.0        | -     | 20.0
        a steep ramp: the newer part's rate, nearer now than the mean    | 60     | 0:0+20@10 a0, 5:0+20@10 a50, 10:0+20@10 a105, 15:0+20@10 a165, 20:0+20@10 a230, 25:0+20@10 a300, 30:0+20@10 a375, 35:0+20@10 a455, 40:0+20@10 a540, 45:0+20@10 a630, 50:0+20@10 a725, 55:0+20@10 a825, 60:0+20@10 a930 | 15.5 | 18.5 | 21.0
        """)
    void givenARateThatChanged_whenEstimated_thenTheLevelSinceTheNewestChangeIsServed(
            String name, long windowSeconds, String history, double windowMean, Double level, double toServe) {
        SampleHistory samples = SampleScript.history(history);
        RateEstimate estimate = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(windowSeconds), 4);

        assertEquals(windowMean, round(estimate.arrivalsPerSecond()), name);
        assertEquals(level, round(estimate.levelArrivalsPerSecond()), name);
        assertEquals(toServe, round(estimate.arrivalsToServe()), name);
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
        a step in the newest interval is the new level, no tilt | 0-55/5:100+0@10 c20/s, 60:200+0@10 c20/s                   | 40.0      | 0.0   | 40.0
        BUG: a step two polls back is a level, not a slope      | 0-45/5:0+20@10 a10/s, 50-60/5:0+20@10 a100/s-4050          | 100.0     | 0.0   | 100.0
        a step inside a poll interval: that interval left out   | 0-40/5:0+20@10 a10/s, 45:0+20@10 a675, 50-60/5:0+20@10 a100/s-3825 | 100.0 | 0.0 | 100.0
        a burst after an idle gap is its level at once          | 0-55/5:0+0@10 a0, 60:0+20@10 a500                          | 100.0     | 0.0   | 100.0
        arrivals stopped: the newest interval is the rate now   | 30:100+0@10 a600 c600, 35:100+0@10 a700 c700, 40:105+0@10 a805 c800, 45:115+0@10 a915 c900, 50:130+0@10 a1030 c1000, 55:150+0@10 a1150 c1100, 60:50+0@10 a1150 c1200  | 0.0       | 0.0   | 0.0
        a gently falling rate counts as flat, at the median     | 0:0+20@2 a0, 5:0+20@2 a100, 10:0+20@2 a198, 15:0+20@2 a294, 20:0+20@2 a388 | 19.4 | 0.0 | 19.4
        a rate falling beyond chance: the newest interval's     | 0:0+20@2 a0, 5:0+20@2 a150, 10:0+20@2 a275, 15:0+20@2 a375, 20:0+20@2 a450 | 15.0 | 0.0 | 15.0
        two intervals are too few for a line: the mean rate     | 0:0+20@2 a0, 5:0+20@2 a50, 10:0+20@2 a150                  | 15.0      | 0.0   | 15.0
        """)
    void givenArrivalsOverTime_whenEstimated_thenTheirTrendIsFitted(
            String name, String history, double now, double slope, double expectedIn15) {
        SampleHistory samples = SampleScript.history(history);
        RateEstimate estimate = estimator.estimate(samples, samples.size() - 1, Duration.ofSeconds(60), 4);

        assertEquals(now, round(estimate.trendArrivalsPerSecond()), name);
        assertEquals(slope, round(estimate.trendPerSecondSquared()), name);
        assertEquals(expectedIn15, round(estimate.arrivalsExpectedIn(15)), name);
    }
}
