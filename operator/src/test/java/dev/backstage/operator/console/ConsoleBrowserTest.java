package dev.backstage.operator.console;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.backstage.operator.autoscaler.AutoscalerSettings;
import dev.backstage.operator.autoscaler.BacklogMonitors;
import dev.backstage.operator.broker.ConnectionSecrets;
import dev.backstage.operator.model.AutoscalingSpec;
import dev.backstage.operator.model.BackstageTopology;
import dev.backstage.operator.model.BackstageWorkerPool;
import dev.backstage.operator.model.BackstageWorkerPoolStatus;
import dev.backstage.operator.testing.BackstageFixtures;
import dev.backstage.runtime.cli.BackstageCli;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The console in a real browser: Debian's headless Chromium driven through its chromedriver (both installed by
 * {@code ensure_chromium} in bin/lib.sh), against the real API server and Redis of {@link ConsoleFixture}. One
 * walk through the pages as a user does it: sign in, see the pool (and a new scaling reason arrive on the open page,
 * and its plot grow), open its dead letters (a hostile payload shows
 * as text, and no script of it runs), redrive one, suspend a schedule, then as a read-only user be refused; and
 * watch an autoscaled pool's page while real jobs are enqueued on Redis and the operator's own backlog monitor
 * ({@link BacklogMonitors}, in this JVM) measures them and raises the desired replicas. With
 * {@code -Dbackstage.updateDocs=true} it writes a screenshot of each page to {@code docs/console/}.
 */
@Tag("cluster")
@Tag("broker")
class ConsoleBrowserTest {
    private static final Duration WAIT = Duration.ofSeconds(60); // a loaded machine
    private static ConsoleFixture fixture;
    private static WebDriver browser;
    private static String base;

    @BeforeAll
    static void start() throws IOException {
        fixture = new ConsoleFixture();
        base = "http://127.0.0.1:" + fixture.console.port();
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments(
                "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void givenAWriterAndAReader_whenTheyUseTheConsoleInABrowser_thenItActsForOneAndRefusesTheOther() throws Exception {
        String hostile = "{\"note\":\"<script>document.title='pwned'</script><img src=x onerror=alert(1)>\"}";
        String hostileId = fixture.deadLetter(hostile);
        String plainId = fixture.deadLetter("{\"orderId\":\"o-42\"}");

        signIn("writer");
        await("the pool in the overview").atMost(WAIT).ignoreExceptions().until(() -> {
            browser.navigate().refresh();
            return !browser.findElements(By.cssSelector("tr[data-pool='" + fixture.ns + "/workers']"))
                    .isEmpty();
        });
        screenshot("overview");

        // Live: a new scaling decision reaches the open page by its own polling, without a reload.
        String reason = "backlog 480 needs 4 workers (" + System.nanoTime() + ")";
        fixture.client
                .resources(BackstageWorkerPool.class)
                .inNamespace(fixture.ns)
                .withName("workers")
                .editStatus(p -> {
                    p.getStatus().setLastScaleReason(reason);
                    return p;
                });
        await("the overview updates itself")
                .atMost(WAIT)
                .ignoreExceptions()
                .until(() -> browser.findElement(By.cssSelector("tr[data-pool='" + fixture.ns + "/workers']"))
                        .getText()
                        .contains(reason));

        browser.findElement(By.linkText("workers")).click();
        await("the plot")
                .atMost(WAIT)
                .until(() -> !browser.findElements(By.cssSelector("svg.plot")).isEmpty());
        int samples = samplesShown();
        await("the plot grows while the page is open")
                .atMost(WAIT)
                .ignoreExceptions()
                .until(() -> samplesShown() > samples);

        browser.findElement(By.cssSelector("a.dlq")).click();
        WebElement hostileRow = browser.findElement(By.cssSelector("tr[data-id='" + hostileId + "']"));
        String shown = hostileRow.findElement(By.cssSelector("pre.payload")).getText();
        assertTrue(shown.contains("<script>document.title='pwned'</script>"), shown);
        assertTrue(shown.contains("<img src=x onerror=alert(1)>"), shown);
        assertTrue(
                browser.getTitle().startsWith("Dead letters"), "no script of the payload ran: " + browser.getTitle());
        assertEquals(0, browser.findElements(By.cssSelector("main img")).size(), "the payload made no element");
        screenshot("dead-letters");

        browser.findElement(By.cssSelector("tr[data-id='" + plainId + "'] form[action$='/redrive'] button"))
                .click();
        browser.switchTo().alert().accept();
        await("redriven")
                .atMost(WAIT)
                .until(() -> browser.findElements(By.id("notice")).stream()
                        .anyMatch(n -> n.getText().equals("Redrove " + plainId + ".")));
        assertEquals(
                List.of(hostileId),
                fixture
                        .redis
                        .xrange(fixture.keys.deadLetter("default"), io.lettuce.core.Range.create("-", "+"))
                        .stream()
                        .map(m -> m.getId())
                        .toList());
        assertEquals(1, fixture.redis.xlen(fixture.keys.stream("default")), "the job is back on its queue");

        browser.get(base + "/schedules?namespace=" + fixture.ns);
        browser.findElement(By.cssSelector("tr[data-schedule='nightly'] button"))
                .click();
        browser.switchTo().alert().accept();
        await("suspended")
                .atMost(WAIT)
                .until(() -> Boolean.TRUE.equals(fixture.client
                        .resources(BackstageTopology.class)
                        .inNamespace(fixture.ns)
                        .withName("orders")
                        .get()
                        .getSpec()
                        .getSchedules()
                        .get(0)
                        .getSuspend()));
        // The page after the action may have been drawn before the console's informer saw the change: reload.
        await("the page says so").atMost(WAIT).ignoreExceptions().until(() -> {
            browser.get(base + "/schedules?namespace=" + fixture.ns);
            return browser.findElement(By.cssSelector("tr[data-schedule='nightly'] td.suspended"))
                    .getText()
                    .equals("yes");
        });
        screenshot("schedules");

        browser.findElement(By.cssSelector("form.signout button")).click();
        signIn("reader");
        browser.get(base + "/schedules?namespace=" + fixture.ns);
        browser.findElement(By.cssSelector("tr[data-schedule='nightly'] button"))
                .click();
        browser.switchTo().alert().accept();
        await("refused")
                .atMost(WAIT)
                .until(() -> browser.findElements(By.id("notice")).stream()
                        .anyMatch(n ->
                                n.getText().contains("may not update backstagetopologies " + fixture.ns + "/orders")));
        assertEquals(
                Boolean.TRUE,
                fixture.client
                        .resources(BackstageTopology.class)
                        .inNamespace(fixture.ns)
                        .withName("orders")
                        .get()
                        .getSpec()
                        .getSchedules()
                        .get(0)
                        .getSuspend(),
                "still suspended");
        screenshot("refused");
    }

    /** The sample count the pool page's legend states ("… · N samples"). */
    private static int samplesShown() {
        String legend = browser.findElement(By.cssSelector("p.legend")).getText();
        return Integer.parseInt(legend.replaceAll(".*· (\\d+) samples.*", "$1"));
    }

    private static void signIn(String serviceAccount) {
        browser.get(base + "/signin");
        browser.findElement(By.id("token")).sendKeys(fixture.token(serviceAccount));
        browser.findElement(By.id("signin")).click();
        try {
            await("signed in")
                    .atMost(WAIT)
                    .until(() -> !browser.findElements(By.cssSelector("form.signout"))
                            .isEmpty());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "not signed in; the browser shows " + browser.getCurrentUrl() + ": " + browser.getPageSource(), e);
        }
    }

    /** Writes docs/console/NAME.png when -Dbackstage.updateDocs=true; otherwise nothing. */
    private static void screenshot(String name) throws IOException {
        if (!Boolean.getBoolean("backstage.updateDocs")) {
            return;
        }
        Path dir = Path.of(System.getProperty("backstage.repoRoot", "..")).resolve("docs/console");
        Files.createDirectories(dir);
        byte[] png = ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Files.write(dir.resolve(name + ".png"), png);
    }

    @Test
    void givenJobsEnqueuedOnAnAutoscaledPool_whenItsPageIsOpen_thenThePlotGrowsAndDesiredReplicasRise()
            throws Exception {
        String ns = fixture.ns;
        BackstageWorkerPool bulk = BackstageFixtures.pool(ns, "bulk", "orders", "bulk");
        AutoscalingSpec autoscaling = new AutoscalingSpec();
        autoscaling.setEnabled(true);
        autoscaling.setMinReplicas(1);
        autoscaling.setMaxReplicas(6);
        autoscaling.setTargetBacklogPerReplica(10);
        autoscaling.setPollInterval("1s");
        bulk.getSpec().setAutoscaling(autoscaling);
        fixture.client.resource(bulk).create();
        // As the pool reconciler leaves it after its first reconcile: one replica asked for and ready.
        BackstageWorkerPool reconciled = fixture.client
                .resources(BackstageWorkerPool.class)
                .inNamespace(ns)
                .withName("bulk")
                .editStatus(p -> {
                    BackstageWorkerPoolStatus status = new BackstageWorkerPoolStatus();
                    status.setObservedGeneration(p.getMetadata().getGeneration());
                    status.setDesiredReplicas(1);
                    status.setReadyReplicas(1);
                    p.setStatus(status);
                    return p;
                });
        BacklogMonitors monitors = BacklogMonitors.create(
                fixture.client,
                new ConnectionSecrets(fixture.client),
                fixture.events,
                Clock.systemUTC(),
                AutoscalerSettings.defaults());
        try {
            // As the topology reconciler leaves it once the broker objects are declared: Ready.
            BackstageTopology orders = BackstageFixtures.setTopologyReady(
                    fixture.client,
                    fixture.client
                            .resources(BackstageTopology.class)
                            .inNamespace(ns)
                            .withName("orders")
                            .get(),
                    true,
                    "Declared",
                    "queues declared on Redis");
            monitors.track(reconciled, Optional.of(orders));
            signIn("writer");
            browser.get(base + "/pools/" + ns + "/bulk");
            await("the pool page")
                    .atMost(WAIT)
                    .ignoreExceptions()
                    .until(() -> browser.findElement(By.cssSelector("dd.replicas"))
                            .getText()
                            .equals("1 / 1"));
            int samples = samplesShown();

            // 50 real jobs on the pool's queue, enqueued with the runtime's CLI: a backlog of 50 at 10 per replica.
            assertEquals(
                    0,
                    BackstageCli.execute(
                            "enqueue",
                            "processOrder",
                            "{\"orderId\":\"o-1\"}",
                            "--count",
                            "50",
                            "--queue",
                            "bulk",
                            "--prefix",
                            fixture.prefix,
                            "--url",
                            ConsoleFixture.REDIS));
            assertEquals(50, fixture.redis.xlen(fixture.keys.stream("bulk")));

            // The open page follows by its own polling: desired replicas rise, and the plot gains samples.
            await("desired replicas rise on the open page")
                    .atMost(Duration.ofSeconds(45))
                    .ignoreExceptions()
                    .until(() -> desiredShown() >= 5);
            await("the plot grows").atMost(WAIT).ignoreExceptions().until(() -> samplesShown() > samples + 2);
            String reason = browser.findElement(By.cssSelector("dd.reason")).getText();
            assertTrue(reason.contains("outstanding") && reason.contains("scaling up"), reason);
            BackstageWorkerPoolStatus now = fixture.client
                    .resources(BackstageWorkerPool.class)
                    .inNamespace(ns)
                    .withName("bulk")
                    .get()
                    .getStatus();
            assertTrue(
                    now.getDesiredReplicas() >= 5,
                    "the API server holds what the page shows: " + now.getDesiredReplicas());
            assertFalse(
                    browser.findElements(By.cssSelector("svg.plot line.scale")).isEmpty(),
                    "the scaling decision is marked on the plot");
            screenshot("pool");
        } finally {
            monitors.stop();
        }
    }

    /** The desired replicas the pool page shows ("ready / desired"). */
    private static int desiredShown() {
        String replicas = browser.findElement(By.cssSelector("dd.replicas")).getText();
        return Integer.parseInt(replicas.substring(replicas.indexOf('/') + 1).trim());
    }
}
