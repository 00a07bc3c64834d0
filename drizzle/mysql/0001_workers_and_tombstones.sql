CREATE TABLE `leaf_alloc_tombstone` (
	`biz_tag` varchar(128) NOT NULL,
	`max_id` bigint NOT NULL,
	`deleted_at` timestamp NOT NULL DEFAULT (now()),
	CONSTRAINT `leaf_alloc_tombstone_biz_tag` PRIMARY KEY(`biz_tag`)
);
--> statement-breakpoint
CREATE TABLE `leaf_worker` (
	`worker_id` int NOT NULL,
	`node_id` varchar(255) NOT NULL,
	`instance_id` varchar(64) NOT NULL,
	`lease_expires_at` bigint NOT NULL,
	`last_timestamp` bigint NOT NULL DEFAULT 0,
	`heartbeat_at` bigint NOT NULL,
	CONSTRAINT `leaf_worker_worker_id` PRIMARY KEY(`worker_id`)
);
--> statement-breakpoint
ALTER TABLE `leaf_alloc` MODIFY COLUMN `max_id` bigint NOT NULL DEFAULT 1;--> statement-breakpoint
CREATE INDEX `leaf_worker_node_id` ON `leaf_worker` (`node_id`);