CREATE TABLE `leaf_order` (
	`biz_tag` text(128) PRIMARY KEY NOT NULL,
	`strict_since` integer NOT NULL,
	`epoch` integer DEFAULT 0 NOT NULL,
	`owner_node` text(255),
	`owner_instance` text(64),
	`owner_address` text(255),
	`lease_expires_at` integer DEFAULT 0 NOT NULL,
	`acquired_at` integer DEFAULT 0 NOT NULL
);
