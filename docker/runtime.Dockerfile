# syntax=docker/dockerfile:1
# The shared worker runtime image ("backstage-runtime"). Users add their task modules on top:
#   FROM backstage-runtime:0.1.0
#   COPY my-tasks.jar /opt/backstage/tasks/
# Every jar in /opt/backstage/tasks/ is on the class path; RuntimeMain finds the TaskModules in them with
# ServiceLoader (META-INF/services/dev.backstage.runtime.api.TaskModule). Put a task module's own
# dependencies there too, but not a copy of worker-runtime (do not shade it into a fat jar).
# Build from the repository root:
#   docker build -f docker/runtime.Dockerfile -t backstage-runtime:0.1.0 .

ARG MAVEN_IMAGE=maven:3-eclipse-temurin-17
ARG JRE_IMAGE=eclipse-temurin:17-jre

FROM ${MAVEN_IMAGE} AS build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -ntp -DskipTests package -pl worker-runtime -am
RUN set -eu; \
    mkdir -p /out/lib; \
    cp worker-runtime/target/lib/*.jar /out/lib/; \
    jar=$(find worker-runtime/target -maxdepth 1 -name 'worker-runtime-*.jar' ! -name '*-sources.jar' ! -name '*-tests.jar' ! -name '*-javadoc.jar'); \
    cp "$jar" /out/lib/

FROM ${JRE_IMAGE}
LABEL org.opencontainers.image.title="backstage-runtime" \
      org.opencontainers.image.description="Backstage worker runtime: add task module jars to /opt/backstage/tasks/"
# uid/gid 65532, numeric so that the worker pods' runAsNonRoot can verify it.
RUN groupadd --system --gid 65532 nonroot \
 && useradd --system --uid 65532 --gid 65532 --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin nonroot \
 && mkdir -p /opt/backstage/tasks /etc/backstage
WORKDIR /opt/backstage
COPY --from=build /out/lib/ /opt/backstage/lib/
USER 65532:65532
# /healthz, /readyz and /metrics.
EXPOSE 8080
# The operator mounts the rendered runtime config here (runtime.config.RuntimeConfig).
ENV BACKSTAGE_CONFIG=/etc/backstage/runtime.yaml \
    JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError"
ENTRYPOINT ["java", "-cp", "/opt/backstage/lib/*:/opt/backstage/tasks/*", "dev.backstage.runtime.main.RuntimeMain"]
