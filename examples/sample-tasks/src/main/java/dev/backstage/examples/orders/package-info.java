/**
 * The sample task module ({@code OrderTasks}, found through {@code META-INF/services}): orders charged and receipts
 * chained, a declined card that ends in the dead-letter queue, a flaky one a retry fixes, and a cron report. Imports
 * the runtime's {@code api} only; the demo, the sandbox and the tests run it.
 */
package dev.backstage.examples.orders;
