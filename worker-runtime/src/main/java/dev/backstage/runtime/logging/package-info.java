/**
 * Logging of the mains (runtime container, operator, CLI, demos): {@link dev.backstage.runtime.logging.LogSettings}
 * from {@code BACKSTAGE_LOG_*}, applied to logback by {@link dev.backstage.runtime.logging.LogBackend}. Only mains
 * use this package; logback is an optional dependency of the runtime library.
 */
package dev.backstage.runtime.logging;
