CREATE TABLE `leaf_setting` (
	`name` varchar(64) NOT NULL,
	`value` varchar(512) NOT NULL,
	`set_by` varchar(255) NOT NULL,
	`set_at` bigint NOT NULL,
	CONSTRAINT `leaf_setting_name` PRIMARY KEY(`name`)
);
