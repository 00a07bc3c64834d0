CREATE TABLE `leaf_token` (
	`id` varchar(16) NOT NULL,
	`name` varchar(128) NOT NULL,
	`token_hash` varchar(64) NOT NULL,
	`tags` text NOT NULL,
	`created_at` bigint NOT NULL,
	`created_by` varchar(128) NOT NULL,
	`revoked_at` bigint,
	CONSTRAINT `leaf_token_id` PRIMARY KEY(`id`),
	CONSTRAINT `leaf_token_token_hash_unique` UNIQUE(`token_hash`)
);
