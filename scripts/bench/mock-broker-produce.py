#!/usr/bin/env python3
"""Time awaited produce batches against the embedded broker (librdkafka's mock cluster), to see the ~40 ms it adds
when a second produce request is in flight on a connection (BENCHMARKS.md, scoring section).

    python3 -m venv .venv-kafka && .venv-kafka/bin/pip install confluent-kafka
    .build/release/caretide broker --address-file /tmp/broker-address &
    .venv-kafka/bin/python scripts/bench/mock-broker-produce.py /tmp/broker-address

Each case sends 20 batches of 30 messages spread over the given partitions of caretide.npi and waits for every
delivery report; it prints the median time per batch.
"""
import sys
import time

from confluent_kafka import Producer

address = open(sys.argv[1]).read().strip()
cases = [
    (2, 0, {}),
    (3, 2, {}),
    (3, 2, {"socket.nagle.disable": True}),
    (3, 2, {"enable.idempotence": False}),
    (3, 2, {"max.in.flight": 1}),
]
for partitions, linger, extra in cases:
    config = {"bootstrap.servers": address, "linger.ms": linger, "enable.idempotence": True, "acks": "all", **extra}
    producer = Producer(config)
    for partition in range(partitions):
        producer.produce("caretide.npi", b"warm", partition=partition)
    producer.flush()
    times = []
    for _ in range(20):
        start = time.perf_counter()
        delivered = []
        for index in range(30):
            producer.produce("caretide.npi", b"x" * 300, partition=index % partitions, on_delivery=lambda error, message: delivered.append(1))
        while len(delivered) < 30:
            producer.poll(0.0005)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"{partitions} partitions, linger.ms {linger}, {extra or 'defaults'}: p50 {times[len(times) // 2]:.1f} ms")
