CREATE TABLE `leaf_order` (
	`biz_tag` varchar(128) NOT NULL,
	`strict_since` bigint NOT NULL,
	`epoch` bigint NOT NULL DEFAULT 0,
	`owner_node` varchar(255),
	`owner_instance` varchar(64),
	`owner_address` varchar(255),
	`lease_expires_at` bigint NOT NULL DEFAULT 0,
	`acquired_at` bigint NOT NULL DEFAULT 0,
	CONSTRAINT `leaf_order_biz_tag` PRIMARY KEY(`biz_tag`)
);
