CREATE TABLE `leaf_alloc_tombstone` (
	`biz_tag` text(128) PRIMARY KEY NOT NULL,
	`max_id` integer NOT NULL,
	`deleted_at` text DEFAULT CURRENT_TIMESTAMP NOT NULL
);
--> statement-breakpoint
CREATE TABLE `leaf_worker` (
	`worker_id` integer PRIMARY KEY NOT NULL,
	`node_id` text(255) NOT NULL,
	`instance_id` text(64) NOT NULL,
	`lease_expires_at` integer NOT NULL,
	`last_timestamp` integer DEFAULT 0 NOT NULL,
	`heartbeat_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `leaf_worker_node_id` ON `leaf_worker` (`node_id`);