/** `@pylon/adapters/kafka`: the EventStream on Kafka (kafkajs). */
export * from './stream.kafka.js';
export * from './topics.kafka.js';
export * from './cleanup.kafka.js';
