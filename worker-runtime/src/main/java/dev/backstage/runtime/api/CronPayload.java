package dev.backstage.runtime.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The payload of a cron job, as the TS seed scheduler and the runtime's {@code core.Scheduler} write it:
 * {@code {"taskName":…,"args":…}}. A Go seed scheduler sends {@code {}}: both fields are then {@code null}.
 * Register a cron task with it: {@code worker.register("report.build", CronPayload.class, (ctx, cron) -> …)}.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record CronPayload(String taskName, JsonNode args) {}
