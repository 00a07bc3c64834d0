CREATE TABLE `leaf_setting` (
	`name` text(64) PRIMARY KEY NOT NULL,
	`value` text(512) NOT NULL,
	`set_by` text(255) NOT NULL,
	`set_at` integer NOT NULL
);
