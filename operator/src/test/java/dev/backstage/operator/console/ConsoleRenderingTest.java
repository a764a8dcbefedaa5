package dev.backstage.operator.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolSpec;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.model.ScheduleSpec;
import dev.backstage.runtime.spi.DeadLetterEntry;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConsoleRenderingTest {
    private static final String HOSTILE = "<script>alert('x')</script>";

    private static DeadLetterEntry entry(String id, String payload) {
        return new DeadLetterEntry(id, "default", "processOrder", payload, "boom <b>", 5, 0L, "job-" + id, 0L);
    }

    @Test
    void givenMarkup_whenEscaped_thenEveryMetacharacterBecomesAnEntity() {
        assertEquals("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;", Html.text(HOSTILE + " & \""));
        assertEquals("", Html.text(null));
    }

    @Test
    void givenAHostilePayloadAndError_whenTheDeadLetterPageRenders_thenTheyAppearOnlyAsText() {
        String html = DeadLetterPage.body(
                "shop",
                "workers",
                "default",
                List.of(entry("1-0", "{\"note\":\"" + HOSTILE.replace("'", "\\u0027") + "\"}")),
                null,
                1,
                true,
                "c");
        assertFalse(html.contains("<script>"), html);
        assertFalse(html.contains("<b>"), html);
        assertTrue(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), html);
        assertTrue(html.contains("boom &lt;b&gt;"), html);
    }

    @Test
    void givenOneMoreEntryThanAPage_whenRendered_thenAPageIsShownWithALinkAfterItsLastEntry() {
        List<DeadLetterEntry> entries = new ArrayList<>();
        for (int i = 0; i <= DeadLetterPage.PAGE_SIZE; i++) {
            entries.add(entry(i + "-0", "{}"));
        }
        String html = DeadLetterPage.body("shop", "workers", "default", entries, null, 500, true, "c");
        assertEquals(DeadLetterPage.PAGE_SIZE, html.split("class=\"dead-letter\"", -1).length - 1);
        assertTrue(html.contains("after=" + (DeadLetterPage.PAGE_SIZE - 1) + "-0\""), html);
        assertFalse(html.contains("First page"), html);
    }

    @Test
    void givenABrokerWithoutSingleEntryActions_whenRendered_thenOnlyRedriveAllIsOffered() {
        String html =
                DeadLetterPage.body("shop", "workers", "default", List.of(entry("1-0", "{}")), null, 1, false, "c");
        assertTrue(html.contains("/dead-letters/redrive-all"), html);
        assertFalse(html.contains("/dead-letters/redrive\""), html);
        assertFalse(html.contains("/dead-letters/delete\""), html);
    }

    @Test
    void givenAnyAction_whenRendered_thenItCarriesTheSessionsCsrfToken() {
        String html = Layout.action("/x", "tok\"en", "Go", "Sure?", "id", "1");
        assertTrue(html.contains("name=\"csrf\" value=\"tok&quot;en\""), html);
        assertTrue(html.contains("data-confirm=\"Sure?\""), html);
    }

    @Test
    void givenBinaryOrHugePayloads_whenShown_thenHexAndATruncationNoteReplaceThem() {
        assertEquals("hex: 6e 6f 74 20 6a 73 6f 6e 7b", PayloadText.of("not json{"));
        assertEquals("{\n  \"a\" : 1\n}", PayloadText.of("{\"a\":1}"));
        String big = PayloadText.of("\"" + "x".repeat(10_000) + "\"");
        assertTrue(big.endsWith("… (" + (10_002 - PayloadText.MAX_CHARS) + " more characters)"), big);
    }

    @Test
    void givenAPoolWithAHostileScaleReason_whenTheOverviewRenders_thenTheReasonIsText() {
        BackstageWorkerPool pool = new BackstageWorkerPool();
        pool.setMetadata(new ObjectMetaBuilder()
                .withNamespace("shop")
                .withName("workers")
                .build());
        pool.setSpec(new BackstageWorkerPoolSpec());
        BackstageWorkerPoolStatus status = new BackstageWorkerPoolStatus();
        status.setReadyReplicas(2);
        status.setDesiredReplicas(3);
        status.setLastScaleTime("2026-12-03T01:00:00Z");
        status.setLastScaleReason(HOSTILE);
        pool.setStatus(status);
        String html = OverviewPage.body(List.of(pool), List.of(), Set.of("shop"), null);
        assertTrue(html.contains("2 / 3"), html);
        assertFalse(html.contains("<script>"), html);
    }

    @Test
    void givenSamples_whenPlotted_thenEachSeriesIsAPolylineAndEachScalingDecisionAMark() {
        List<PoolSample> samples = List.of(
                new PoolSample(0, 100, 10, 1, 1, 0),
                new PoolSample(10_000, 50, 5, 4, 2, 0),
                new PoolSample(20_000, 0, 0, 4, 4, 0));
        String svg = HistoryPlot.svg(samples);
        for (String series : List.of("backlog", "inflight", "desired", "ready")) {
            assertTrue(svg.contains("<polyline class=\"" + series + "\""), svg);
        }
        // the backlog starts at the top (its maximum) and ends at the bottom (zero)
        assertTrue(svg.contains("points=\"4.0,4.0 300.0,80.0 596.0,156.0\""), svg);
        assertFalse(HistoryPlot.svg(List.of()).contains("polyline"));
        // one scaling decision (desired 1 -> 4 at the second sample), marked once with its tooltip
        assertEquals(1, svg.split("<line class=\"scale\"", -1).length - 1, svg);
        assertTrue(
                svg.contains("<line class=\"scale\" x1=\"300.0\" y1=\"0\" x2=\"300.0\" y2=\"160\">"
                        + "<title>desired 1 → 4 at 1970-01-01T00:00:10Z</title></line>"),
                svg);
    }

    @Test
    void givenACronSchedule_whenItsNextTicksAreComputed_thenThreeTicksFollowNowInItsZone() {
        ScheduleSpec schedule = new ScheduleSpec();
        schedule.setSchedule("0 9 * * *");
        schedule.setTimeZone("Europe/Paris");
        assertEquals(
                List.of("2026-12-03T08:00:00Z", "2026-12-04T08:00:00Z", "2026-12-05T08:00:00Z"),
                SchedulePage.nextTicks(schedule, Instant.parse("2026-12-03T01:00:00Z"), 3));
        schedule.setSchedule("not cron");
        assertTrue(SchedulePage.nextTicks(schedule, Instant.EPOCH, 3).get(0).startsWith("invalid: cron expression"));
    }

    @Test
    void givenFiredTicks_whenTheScheduleRowRenders_thenTheNewestFiveShowWithTheirJobIdsAsText() {
        dev.backstage.operator.model.ScheduleStatus status = new dev.backstage.operator.model.ScheduleStatus("nightly");
        assertEquals("-", SchedulePage.lastTicks(status));
        for (int minute = 1; minute <= 7; minute++) {
            status.addRecentTick(new dev.backstage.operator.model.FiredTick(
                    "2026-12-03T00:0" + minute + ":00Z", minute == 6 ? null : "1733184000000-" + minute));
        }
        status.addRecentTick(new dev.backstage.operator.model.FiredTick("2026-12-03T00:08:00Z", HOSTILE));
        String cell = SchedulePage.lastTicks(status);
        assertEquals(5, status.getRecentTicks().size());
        assertEquals(5, cell.split("<li class=\"tick\">", -1).length - 1, cell);
        assertTrue(cell.startsWith("<ul class=\"ticks\"><li class=\"tick\">2026-12-03T00:08:00Z"), cell);
        assertTrue(cell.contains("2026-12-03T00:07:00Z <code class=\"job-id\">1733184000000-7</code>"), cell);
        assertTrue(cell.contains("2026-12-03T00:06:00Z <span class=\"elsewhere\">"), cell);
        assertFalse(cell.contains("00:03:00Z"), "only the newest five: " + cell);
        assertFalse(cell.contains("<script>"), cell);
    }
}
