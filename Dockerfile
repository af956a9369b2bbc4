# The Almanac demo node as a container image, built from the Maven-packaged jar:
#
#   mvn -B -q -pl samples -am package -DskipTests && docker build -t almanac:dev .
#
# docs/deployment.md describes the image, its ports and its configuration. DeploymentManifestsTest
# (samples) checks the ports, the health check and the configuration file below against the node's
# configuration and the Kubernetes manifests under deploy/k8s.
FROM eclipse-temurin:17-jre

# curl for the HEALTHCHECK (the node answers its probes over HTTP)
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/*

# An unprivileged user; the one writable folder is /var/lib/almanac (the H2 file of the embedded
# node, the demo jobs' outbox and digests).
RUN groupadd --system --gid 10001 almanac \
    && useradd --system --uid 10001 --gid almanac --home-dir /var/lib/almanac --shell /usr/sbin/nologin almanac \
    && mkdir -p /var/lib/almanac/data \
    && chown -R almanac:almanac /var/lib/almanac

COPY samples/target/almanac-demo.jar /opt/almanac/almanac-demo.jar
COPY deploy/conf/ /opt/almanac/conf/

# The node's configuration file (-Dconfig.file): node.conf runs the embedded demo, or a cluster
# member with "demo --cluster ..."; the Kubernetes manifests set kubernetes.conf. JAVA_OPTS: more
# JVM options (heap: a share of the container's memory limit).
ENV ALMANAC_CONFIG=/opt/almanac/conf/node.conf \
    JAVA_OPTS="-XX:MaxRAMPercentage=75"

USER 10001:10001
WORKDIR /var/lib/almanac
VOLUME /var/lib/almanac

# 8558: HTTP API, dashboard, metrics and health probes (almanac.http.port);
# 2552: Pekko cluster remoting (pekko.remote.artery.canonical.port, used in cluster mode).
EXPOSE 8558 2552

# Healthy once the node is ready to take work (GET /health/ready answers 200, 503 before).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD curl -fsS -o /dev/null http://127.0.0.1:8558/health/ready || exit 1

# The jar's command line (almanac --help): "demo" (the default) runs the node; any other command
# (tasks, queue, why, audit ...) runs the CLI. SIGTERM reaches the JVM (exec), whose coordinated
# shutdown leaves the cluster and hands the node's tasks over.
ENTRYPOINT ["/bin/sh", "-c", "exec java $JAVA_OPTS -Dconfig.file=\"$ALMANAC_CONFIG\" -jar /opt/almanac/almanac-demo.jar \"$@\"", "almanac"]
CMD ["demo"]
