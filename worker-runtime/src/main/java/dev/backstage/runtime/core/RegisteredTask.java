package dev.backstage.runtime.core;

import dev.backstage.runtime.api.TaskHandler;
import dev.backstage.runtime.api.TaskOptions;

/** A task name bound to its payload type, handler and policy. */
public record RegisteredTask<T>(String name, Class<T> payloadType, TaskHandler<T> handler, TaskOptions options) {}
